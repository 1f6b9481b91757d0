package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// The screen's reader explains and charts through the code of explain and
// timeline: on one namespace its verdicts, causes and fix command lines
// are those of `workq-tui explain --json`, and its timeline's counts those
// of `workq-tui timeline --json`.
func TestScreenExplainAsCLI(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	now := redistest.Time(t, c).Unix()
	srv.Do("SADD", k.KnownJobs(), "send_email", "report", "resize")
	srv.Do("SADD", k.WorkerPools(), "live1", "dead1")
	srv.Do("HSET", k.Heartbeat("live1"), "heartbeat_at", now, "started_at", now-100, "host", "web-1", "pid", 1,
		"concurrency", 2, "job_names", "report,resize,send_email", "worker_ids", "w1,w2")
	srv.Do("HSET", k.Heartbeat("dead1"), "heartbeat_at", now-3600, "started_at", now-7200, "host", "web-0", "pid", 2,
		"concurrency", 1, "job_names", "resize", "worker_ids", "w9")
	srv.Do("SET", k.Paused("report"), "1")
	srv.Do("LPUSH", k.Queue("report"), `{"name":"report","id":"r1","t":1700000000,"args":{}}`)
	srv.Do("SET", k.MaxConcurrency("resize"), 1)
	srv.Do("SET", k.Lock("resize"), 1)
	srv.Do("HSET", k.LockInfo("resize"), "dead1", 1)
	srv.Do("LPUSH", k.InProgress("resize", "dead1"), `{"name":"resize","id":"z1","t":1700000000,"args":{}}`)
	srv.Do("LPUSH", k.Queue("resize"), `{"name":"resize","id":"z2","t":1700000000,"args":{}}`)
	for i := 0; i < 12; i++ {
		at := now - 1800 - int64(i)*60
		srv.Do("ZADD", k.Dead(), at, fmt.Sprintf(`{"name":"send_email","id":"d%d","t":%d,"fails":4,"err":"dial tcp 10.0.0.%d:25: i/o timeout","failed_at":%d}`, i, at-600, i, at))
	}
	addr := "--redis=" + srv.Addr()

	fs := pflag.NewFlagSet("screen", pflag.ContinueOnError)
	tgt := &target{}
	tgt.addFlags(fs)
	if err := fs.Parse([]string{addr, "--read-only"}); err != nil {
		t.Fatal(err)
	}
	if err := tgt.check(env{getenv: func(string) string { return "" }}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, stop, err := tgt.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client := redisq.NewDialerClient(d, tgt.namespace, tgt.deadAfter)
	defer client.Close()
	// The screen's explanations judge job health as explain does.
	r := withJobHealth(screenReadsOf(client, d, tgt, screenHistoryOf("", tgt), 0), client,
		redisq.NewHealthTracker(tgt.namespace, model.DefaultHealthLimits()), 0)

	for _, job := range []string{"report", "resize", "send_email", "dead1"} {
		out, errOut, _ := runCLI(t, input{}, "explain", addr, "--json", job)
		var cli explainJSON
		if err := json.Unmarshal([]byte(out), &cli); err != nil {
			t.Fatalf("%s: %v\n%s%s", job, err, out, errOut)
		}
		var want explanationJSON
		var verdict string
		var kinds, fixes []string
		if job == "dead1" {
			want = cli.Pools[0]
			x, err := r.Explain.ExplainPool(ctx, job)
			if err != nil {
				t.Fatal(err)
			}
			verdict = x.Verdict
			for _, c := range x.Causes {
				kinds, fixes = append(kinds, c.Kind), append(fixes, r.Explain.FixCommand(c.Fix))
			}
		} else {
			want = cli.Jobs[0]
			x, err := r.Explain.ExplainJob(ctx, job)
			if err != nil {
				t.Fatal(err)
			}
			verdict = x.Verdict
			for _, c := range x.Causes {
				kinds, fixes = append(kinds, c.Kind), append(fixes, r.Explain.FixCommand(c.Fix))
			}
		}
		var wantKinds, wantFixes []string
		for _, c := range want.Causes {
			fix := ""
			if c.Fix != nil {
				fix = *c.Fix
			}
			wantKinds, wantFixes = append(wantKinds, c.Kind), append(wantFixes, fix)
		}
		if verdict != want.Verdict || !reflect.DeepEqual(kinds, wantKinds) || !reflect.DeepEqual(fixes, wantFixes) {
			t.Errorf("%s: the screen says %q %q %q, explain %q %q %q", job, verdict, kinds, fixes, want.Verdict, wantKinds, wantFixes)
		}
	}
	// Each case above was one cause, with its fix where there is one.
	x, _ := r.Explain.ExplainJob(ctx, "resize")
	if len(x.Causes) == 0 || r.Explain.FixCommand(x.Causes[0].Fix) != "workq-tui --redis "+srv.Addr()+" reap dead1" {
		t.Errorf("resize: %+v", x)
	}

	out, errOut, code := runCLI(t, input{}, "timeline", addr, "--json", "--since", "6h", "--bucket", "5m")
	var cliTL timelineJSON
	if err := json.Unmarshal([]byte(out), &cliTL); code != ExitOK || err != nil {
		t.Fatalf("timeline: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	tl, err := r.Timeline.Timeline(ctx, 6*time.Hour, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	counts := func(starts []int64, deaths []int) string {
		var b strings.Builder
		for i, s := range starts {
			if deaths[i] > 0 {
				fmt.Fprintf(&b, "%d:%d ", s, deaths[i])
			}
		}
		return b.String()
	}
	var s1, s2 []int64
	var d1, d2 []int
	for _, b := range cliTL.Buckets {
		s1, d1 = append(s1, b.Start), append(d1, b.Deaths)
	}
	for _, b := range tl.Buckets {
		s2, d2 = append(s2, b.Start), append(d2, b.Deaths)
	}
	if got, want := counts(s2, d2), counts(s1, d1); got != want || want == "" {
		t.Errorf("the screen's timeline counts deaths %q, timeline --json %q", got, want)
	}
	if len(tl.Starts) != len(cliTL.Starts) || len(tl.LastBeats) != 1 || tl.LastBeats[0].PoolID != "dead1" {
		t.Errorf("markers: starts %+v (timeline %+v), last beats %+v", tl.Starts, cliTL.Starts, tl.LastBeats)
	}
}

// In the demo, a fix the screen prints names the embedded Redis: pasted
// in another terminal while the demo runs, it acts on what the screen
// shows (--demo there would start a demo of its own).
func TestScreenFixPrefixInDemo(t *testing.T) {
	fs := pflag.NewFlagSet("screen", pflag.ContinueOnError)
	tgt := &target{}
	tgt.addFlags(fs)
	if err := fs.Parse([]string{"--demo"}); err != nil {
		t.Fatal(err)
	}
	if err := tgt.check(env{getenv: func(string) string { return "" }}); err != nil {
		t.Fatal(err)
	}
	_, stop, err := tgt.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if tgt.redis.Address == "" {
		t.Fatal("the demo's Redis has no address")
	}
	x := screenExplainer{prefix: screenFixPrefix(tgt)}
	want := "workq-tui --redis " + tgt.redis.Address + " jobs dead requeue --all --job charge_card"
	if got := x.FixCommand([]string{"jobs", "dead", "requeue", "--all", "--job", "charge_card"}); got != want {
		t.Errorf("fix %q, want %q", got, want)
	}
}
