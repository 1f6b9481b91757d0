package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestTimelineCommand writes waves of deaths (many sharing a score, more
// than one step of the walk), deaths outside the window and retry jobs,
// and checks that the buckets hold exactly the counts computed from a dump
// of the sets, and the markers the heartbeats' started_at.
func TestTimelineCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	now := redistest.Time(t, c).Unix()
	args := []any{k.Dead()}
	for i := 0; i < 2500; i++ {
		at := now - 3000 + int64(i/700)*600 // waves of 700 at one score each
		if i%5 == 0 {
			at -= 7200 // outside a 1h window
		}
		name := []string{"send_email", "resize"}[i%2]
		args = append(args, at, fmt.Sprintf(`{"name":%q,"id":"d%d","t":1,"args":{},"fails":4,"err":"timeout after %d ms","failed_at":%d}`, name, i, i, at))
	}
	srv.Do("ZADD", args...)
	srv.Do("ZADD", k.Retry(), now+100, fmt.Sprintf(`{"name":"resize","id":"r1","t":1,"args":{},"fails":1,"err":"boom","failed_at":%d}`, now-100),
		now+200, fmt.Sprintf(`{"name":"resize","id":"r2","t":1,"args":{},"fails":1,"err":"boom","failed_at":%d}`, now-9000))
	srv.Do("SADD", k.WorkerPools(), "p1", "p2", "p3")
	for i, id := range []string{"p1", "p2", "p3"} {
		beat := now
		if id == "p3" {
			beat = now - 1800
		}
		srv.Do("HSET", k.Heartbeat(id), "heartbeat_at", beat, "started_at", now-2400-int64(i/2)*60, "host", "web-"+strconv.Itoa(i/2),
			"pid", i, "concurrency", 1, "job_names", "resize,send_email", "worker_ids", "w"+id)
	}

	out, errOut, code := runCLI(t, input{}, "timeline", "--redis="+srv.Addr(), "--since=1h", "--bucket=5m", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d %q %q", code, out, errOut)
	}
	var got timelineJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	// The counts from a dump of the dead set.
	dump, err := redis.Strings(c.Do("ZRANGE", k.Dead(), 0, -1, "WITHSCORES"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]int{}
	for i := 0; i < len(dump); i += 2 {
		s, _ := strconv.ParseInt(dump[i+1], 10, 64)
		if s >= got.From && s < got.To {
			want[s-s%300]++
		}
	}
	total := 0
	for _, b := range got.Buckets {
		if b.Deaths != want[b.Start] {
			t.Errorf("bucket %d: %d deaths, the dump says %d", b.Start, b.Deaths, want[b.Start])
		}
		total += b.Deaths
		if b.Start <= now-100 && now-100 < b.Start+300 && b.Retrying != 1 {
			t.Errorf("bucket %d: %d retrying, want 1", b.Start, b.Retrying)
		}
	}
	if total != 2000 {
		t.Errorf("%d deaths in the window, want 2000", total)
	}
	wantStarts := []model.StartMarker{{Host: "web-1", StartedAt: now - 2460, Pools: 1}, {Host: "web-0", StartedAt: now - 2400, Pools: 2}}
	if fmt.Sprint(got.Starts) != fmt.Sprint(wantStarts) {
		t.Errorf("starts %+v, want %+v", got.Starts, wantStarts)
	}
	if len(got.LastBeats) != 1 || got.LastBeats[0].PoolID != "p3" || got.LastBeats[0].HeartbeatAt != now-1800 {
		t.Errorf("last beats %+v", got.LastBeats)
	}

	text, _, code := runCLI(t, input{}, "timeline", "--redis="+srv.Addr(), "--since=1h", "--bucket=5m")
	if code != ExitOK || !strings.Contains(text, "timeout after N ms") || !strings.Contains(text, "started") || !strings.Contains(text, "last beat") {
		t.Errorf("text: exit %d\n%s", code, text)
	}
	for _, l := range strings.Split(text, "\n") {
		if textsafe.Width(l) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
	// --where counts only the matching jobs: the resize deaths of the
	// window, as a filter over the dump says.
	out, errOut, code = runCLI(t, input{}, "timeline", "--redis="+srv.Addr(), "--since=1h", "--bucket=5m", "--json", "--where", "job:resize")
	if code != ExitOK {
		t.Fatalf("--where: exit %d %q %q", code, out, errOut)
	}
	var only timelineJSON
	if err := json.Unmarshal([]byte(out), &only); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	wantResize := map[int64]int{}
	for i := 0; i < len(dump); i += 2 {
		s, _ := strconv.ParseInt(dump[i+1], 10, 64)
		if s >= only.From && s < only.To && strings.Contains(dump[i], `"name":"resize"`) {
			wantResize[s-s%300]++
		}
	}
	resized := 0
	for _, b := range only.Buckets {
		if b.Deaths != wantResize[b.Start] {
			t.Errorf("--where job:resize, bucket %d: %d deaths, the dump says %d", b.Start, b.Deaths, wantResize[b.Start])
		}
		resized += b.Deaths
	}
	if resized == 0 || resized >= total {
		t.Errorf("--where job:resize: %d deaths of %d", resized, total)
	}
	for _, bad := range [][]string{{"--bucket=1500ms"}, {"--since=1m", "--bucket=5m"}, {"--since=10000h", "--bucket=1s"}, {"--where", "erorr:x"}} {
		if _, _, code := runCLI(t, input{}, append([]string{"timeline", "--redis=" + srv.Addr()}, bad...)...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, ExitUsage)
		}
	}
}

// By default the chart of a 2-minute-old incident is fitted to it: a
// window of minutes in buckets of seconds, labelled with seconds, saying
// it was fitted; not 72 lines of zeros above it.
func TestTimelineFitsRecentIncident(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "charge")
	for i := range 5 {
		at := now - 120 + int64(i*10)
		redistest.Do(t, c, "ZADD", "work:dead", at, fmt.Sprintf(`{"name":"charge","id":"c%d","t":1,"args":{},"fails":25,"err":"declined","failed_at":%d}`, i, at))
	}
	out, errOut, code := runCLI(t, input{}, "--redis", srv.Addr(), "timeline")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) > 24 || !strings.Contains(out, "fitted to the failures") {
		t.Errorf("%d lines, want a fitted chart of at most 24:\n%s", len(lines), out)
	}
	deaths := 0
	rows := 0
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 3 && regexp.MustCompile(`^\d\d:\d\d:\d\d$`).MatchString(f[0]) {
			rows++
			n, _ := strconv.Atoi(f[1])
			deaths += n
		}
	}
	if rows == 0 || deaths != 5 {
		t.Errorf("%d rows labelled with seconds counting %d deaths, want 5:\n%s", rows, deaths, out)
	}
	// --since and --bucket given: the window asked for.
	out, _, _ = runCLI(t, input{}, "--redis", srv.Addr(), "timeline", "--since", "1h", "--bucket", "5m")
	if strings.Contains(out, "fitted") || len(strings.Split(strings.TrimSpace(out), "\n")) < 12 {
		t.Errorf("--since 1h --bucket 5m:\n%s", out)
	}
}
