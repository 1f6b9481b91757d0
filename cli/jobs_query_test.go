package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// outageState fills namespace work with an outage: 30 charge_card jobs
// that died with "gateway timeout" an hour ago, 10 seconds apart, among
// older mail failures and a refund type no live pool serves. It returns
// the outage's first and last death.
func outageState(t *testing.T, c redis.Conn) (from, to int64) {
	t.Helper()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "charge_card", "mail", "refund")
	redistest.Do(t, c, "SADD", "work:worker_pools", "p1")
	redistest.Do(t, c, "HSET", "work:worker_pools:p1", "job_names", "charge_card,mail", "heartbeat_at", now)
	from = now - 3600
	for i := 0; i < 30; i++ {
		j := fmt.Sprintf(`{"name":"charge_card","id":"c%02d","t":%d,"args":{"order_id":"ord_%d","user":{"id":1234567890123456%d}},"fails":%d,"err":"gateway timeout","failed_at":%d}`, i, from-60, i, i%10, 1+i%5, from+int64(i)*10)
		redistest.Do(t, c, "ZADD", "work:dead", from+int64(i)*10, j)
	}
	for i := 0; i < 20; i++ {
		at := now - 86400 + int64(i)*60
		j := fmt.Sprintf(`{"name":"mail","id":"m%02d","t":%d,"args":{"to":"x%d"},"fails":4,"err":"smtp: timeout","failed_at":%d}`, i, at-5, i, at)
		redistest.Do(t, c, "ZADD", "work:dead", at, j)
	}
	redistest.Do(t, c, "ZADD", "work:dead", from+5, fmt.Sprintf(`{"name":"refund","id":"f1","t":1,"args":{},"fails":1,"err":"gateway timeout","failed_at":%d}`, from+5))
	redistest.Do(t, c, "LPUSH", "work:jobs:mail", `{"name":"mail","id":"q1","t":1,"args":{"to":"a"}}`, `{"name":"mail","id":"q2","t":2,"args":{"to":"b"}}`, `{"name":"mail","id":"q3","t":3,"args":{"to":"a"}}`)
	return from, from + 290
}

func TestJobsWhere(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	from, to := outageState(t, c)
	addr := "--redis=" + srv.Addr()
	window := fmt.Sprintf("since:%s until:%s", time.Unix(from, 0).UTC().Format(time.RFC3339), time.Unix(to, 0).UTC().Format(time.RFC3339))
	run := func(code int, args ...string) (string, string) {
		t.Helper()
		out, stderr, got := runCLI(t, input{}, append([]string{addr}, args...)...)
		if got != code {
			t.Fatalf("%v: exit %d, want %d; stderr %q", args, got, code, stderr)
		}
		return out, stderr
	}
	ids := func(out string) []string {
		var p struct{ Jobs []struct{ ID string } }
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var s []string
		for _, j := range p.Jobs {
			s = append(s, j.ID)
		}
		return s
	}

	t.Run("listing", func(t *testing.T) {
		out, _ := run(0, "--read-only", "jobs", "dead", "--json", "--limit", "100", "--where", window+" err:timeout job:charge_*")
		got := ids(out)
		if len(got) != 30 || got[0] != "c29" || got[29] != "c00" {
			t.Fatalf("window listing: %v", got)
		}
		out, _ = run(0, "jobs", "dead", "--json", "--where", "args.user.id:12345678901234563")
		if got := ids(out); !reflect.DeepEqual(got, []string{"c23", "c13", "c03"}) {
			t.Fatalf("args path listing: %v", got)
		}
		out, _ = run(0, "jobs", "dead", "--json", "--where", "fails>=5 since:2h", "--error", "gateway")
		if got := ids(out); !reflect.DeepEqual(got, []string{"c29", "c24", "c19", "c14", "c09", "c04"}) {
			t.Fatalf("fails and --error listing: %v", got)
		}
		out, _ = run(0, "jobs", "queue", "mail", "--json", "--where", `args.to:a`)
		var qp struct {
			Length int64
			Jobs   []struct {
				ID       string
				Position int64
			}
		}
		if err := json.Unmarshal([]byte(out), &qp); err != nil {
			t.Fatal(err)
		}
		if qp.Length != 2 || len(qp.Jobs) != 2 || qp.Jobs[0].ID != "q1" || qp.Jobs[0].Position != 0 || qp.Jobs[1].ID != "q3" || qp.Jobs[1].Position != 2 {
			t.Fatalf("queue listing: %s", out)
		}
	})
	t.Run("summary", func(t *testing.T) {
		out, _ := run(0, "--read-only", "jobs", "dead", "--summary", "--json", "--where", window)
		var s jobsSummaryJSON
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		if s.Members != 31 || len(s.ByName) != 2 || s.ByName[0].Count != 30 || s.ByName[1].Name != "refund" {
			t.Fatalf("summary %+v", s)
		}
	})
	before := redistest.Dump(t, c, "*")
	t.Run("dry run of a refused write shows the plan", func(t *testing.T) {
		out, stderr, code := runCLI(t, input{}, addr, "jobs", "dead", "requeue", "--all", "--dry-run", "--where", window+" job:refund")
		// The dry run shows the plan --force would run, and says that a run
		// without it is refused, exiting 1 as that run does.
		if code != 1 || !strings.Contains(stderr, "a run without --force is refused") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		for _, want := range []string{"Matched: 1 job", "refund", "none", "without --force the requeue is refused", "Dry run: nothing changed."} {
			if !strings.Contains(out, want) {
				t.Fatalf("plan lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("plan", func(t *testing.T) {
		out, _ := run(0, "jobs", "dead", "requeue", "--all", "--dry-run", "--where", window+` err:"gateway timeout"`)
		for _, want := range []string{
			"Matched: 31 jobs, died_at from " + time.Unix(from, 0).UTC().Format(time.RFC3339) + " to " + time.Unix(to, 0).UTC().Format(time.RFC3339),
			"charge_card  30    serves it", "refund       1     none", "gateway timeout", "c00  charge_card",
			"Left alone: 1 job (name no worker pool serves", "Total: 30 jobs",
		} {
			if !strings.Contains(out, want) {
				t.Fatalf("plan lacks %q:\n%s", want, out)
			}
		}
		if n := strings.Count(out, "  charge_card  died_at"); n != 20 {
			t.Fatalf("plan lists %d jobs, want the first 20:\n%s", n, out)
		}
	})
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Fatal("a dry run changed Redis")
	}
	t.Run("requeue", func(t *testing.T) {
		log := t.TempDir() + "/a.log"
		run(0, "jobs", "dead", "requeue", "--all", "--yes", "--audit-log", log, "--where", window+" job:charge_card")
		if b, err := os.ReadFile(log); err != nil || !strings.Contains(string(b), `where=\"`+window+` job:charge_card\"`) {
			t.Fatalf("audit line does not name the query: %q %v", b, err)
		}
		n, _ := redis.Int(c.Do("LLEN", "work:jobs:charge_card"))
		d, _ := redis.Int(c.Do("ZCARD", "work:dead"))
		if n != 30 || d != 21 {
			t.Fatalf("queue %d, dead %d; want 30 and 21", n, d)
		}
	})
	t.Run("delete", func(t *testing.T) {
		run(0, "jobs", "dead", "delete", "--all", "--yes", "--audit-log", t.TempDir()+"/a.log", "--job", "mail", "--where", "since:2d args:x1")
		out, _ := run(0, "jobs", "dead", "--json", "--limit", "100", "--where", "job:mail")
		if got := ids(out); len(got) != 9 || contains(got, "m01") || contains(got, "m10") {
			t.Fatalf("after deleting args:x1 (m01, m10..m19): %v", got)
		}
	})
}

// A paced requeue of 20,000 dead jobs at 500 a second never puts more than
// 500 jobs on the queue in any second sampled; an interrupt at a random
// point leaves every job either dead or queued, once, and says how many
// moved; the same command run again finishes. Under -short the same runs
// over 2,000 jobs.
func TestJobsRequeueRate(t *testing.T) {
	total, rate := 20000, 500
	if testing.Short() {
		total = 2000
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "charge_card")
	redistest.Do(t, c, "SADD", "work:worker_pools", "p1")
	redistest.Do(t, c, "HSET", "work:worker_pools:p1", "job_names", "charge_card", "heartbeat_at", now+3600)
	for i := 0; i < total; i += 1000 {
		args := []any{"work:dead"}
		for k := i; k < i+1000; k++ {
			args = append(args, now-int64(k), fmt.Sprintf(`{"name":"charge_card","id":"j%05d","t":1,"args":{"n":%d},"fails":1,"err":"gateway timeout","failed_at":%d}`, k, k, now-int64(k)))
		}
		redistest.Do(t, c, "ZADD", args...)
	}
	addr := "--redis=" + srv.Addr()
	cmd := []string{addr, "jobs", "dead", "requeue", "--all", "--yes", "--audit-log", t.TempDir() + "/a.log", "--rate", fmt.Sprint(rate)}

	// A sample's LLEN ran in Redis between from and to.
	type sample struct {
		from, to time.Time
		n        int64
	}
	var samples []sample
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := srv.Dial()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			from := time.Now()
			n, err := redis.Int64(sc.Do("LLEN", "work:jobs:charge_card"))
			if err == nil {
				samples = append(samples, sample{from, time.Now(), n})
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	full := time.Duration(total/rate) * time.Second
	after := full/5 + time.Duration(rand.Int63n(int64(full/2)))
	time.AfterFunc(after, cancel)
	var out, errb bytes.Buffer
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: testGetenv(t, nil), version: "test"}
	code := exitCode(e.run(ctx, cmd), &errb)
	close(stop)
	wg.Wait()
	if code == 0 {
		t.Fatalf("interrupted after %v, exit 0:\n%s", after, out.String())
	}
	queued, _ := redis.Int64(c.Do("LLEN", "work:jobs:charge_card"))
	dead, _ := redis.Int64(c.Do("ZCARD", "work:dead"))
	if queued+dead != int64(total) || queued == 0 || dead == 0 {
		t.Fatalf("after the interrupt at %v: %d queued + %d dead, want %d in all, both some", after, queued, dead, total)
	}
	// Every id once: in the queue or in the dead set, never both, never
	// twice.
	queuedItems, err := redis.Strings(c.Do("LRANGE", "work:jobs:charge_card", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	deadItems, err := redis.Strings(c.Do("ZRANGE", "work:dead", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]string{}
	for _, it := range append(queuedItems, deadItems...) {
		var j struct{ ID string }
		if err := json.Unmarshal([]byte(it), &j); err != nil || where[j.ID] != "" {
			t.Fatalf("after the interrupt, job %s twice or not JSON (%v): %s", j.ID, err, it)
		}
		where[j.ID] = it
	}
	if len(where) != total {
		t.Fatalf("after the interrupt: %d distinct ids, want %d", len(where), total)
	}
	if want := fmt.Sprintf("Stopped: %d of %d jobs done, %d left", queued, total, dead); !strings.Contains(out.String(), want) {
		t.Fatalf("report lacks %q:\n%s", want, out.String())
	}
	if !strings.Contains(errb.String(), "jobs/s") || !strings.Contains(errb.String(), "left") {
		t.Fatalf("no progress on stderr: %q", errb.String())
	}
	// The most any second gained, between samples whose LLENs surely ran
	// less than a second apart.
	most := int64(0)
	for i := range samples {
		for j := i + 1; j < len(samples) && samples[j].to.Sub(samples[i].from) < time.Second; j++ {
			most = max(most, samples[j].n-samples[i].n)
		}
	}
	if bound := int64(rate); most > bound || len(samples) < 10 {
		t.Fatalf("the queue gained %d jobs within a second (bound %d, %d samples)", most, bound, len(samples))
	}
	// Run again: it finishes, each job queued once.
	if _, stderr, code := runCLI(t, input{}, cmd...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	items, err := redis.Strings(c.Do("LRANGE", "work:jobs:charge_card", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, it := range items {
		var j struct{ ID string }
		if err := json.Unmarshal([]byte(it), &j); err != nil || seen[j.ID] {
			t.Fatalf("queue item %s: duplicate or not JSON (%v)", it, err)
		}
		seen[j.ID] = true
	}
	if dead, _ := redis.Int64(c.Do("ZCARD", "work:dead")); len(seen) != total || dead != 0 {
		t.Fatalf("after the rerun: %d distinct queued, %d dead", len(seen), dead)
	}
}
