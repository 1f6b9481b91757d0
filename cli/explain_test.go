package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestExplainCommand writes a namespace by hand (one live pool, a paused
// type, a type whose lock a dead pool holds, a stale unique key) and checks
// each verdict, its fix command and the exit status; then runs the fixes
// printed and checks that the types are explained as running.
func TestExplainCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	now := redistest.Time(t, c).Unix()
	srv.Do("SADD", k.KnownJobs(), "send_email", "report", "resize", "notify")
	srv.Do("SADD", k.WorkerPools(), "live1", "dead1")
	srv.Do("HSET", k.Heartbeat("live1"), "heartbeat_at", now, "started_at", now-100, "host", "web-1", "pid", 1,
		"concurrency", 2, "job_names", "notify,report,resize,send_email", "worker_ids", "w1,w2")
	srv.Do("HSET", k.Heartbeat("dead1"), "heartbeat_at", now-3600, "started_at", now-7200, "host", "web-0", "pid", 2,
		"concurrency", 1, "job_names", "resize", "worker_ids", "w9")
	srv.Do("SET", k.Paused("report"), "1")
	srv.Do("LPUSH", k.Queue("report"), `{"name":"report","id":"r1","t":1700000000,"args":{}}`)
	// resize: max 1, the one slot held by the dead pool's in-progress job.
	srv.Do("SET", k.MaxConcurrency("resize"), 1)
	srv.Do("SET", k.Lock("resize"), 1)
	srv.Do("HSET", k.LockInfo("resize"), "dead1", 1)
	srv.Do("LPUSH", k.InProgress("resize", "dead1"), `{"name":"resize","id":"z1","t":1700000000,"args":{}}`)
	srv.Do("LPUSH", k.Queue("resize"), `{"name":"resize","id":"z2","t":1700000000,"args":{}}`)
	// notify: a unique key left behind while no copy waits.
	srv.Do("SET", k.Prefix()+"unique:notify:{\"user\":1}\n", "1", "EX", 3600)
	addr := "--redis=" + srv.Addr()

	out, errOut, code := runCLI(t, input{}, "explain", addr, "--read-only", "send_email")
	if code != ExitOK || !strings.HasPrefix(out, "send_email: send_email is running normally\n") {
		t.Fatalf("running type: exit %d, out %q, err %q", code, out, errOut)
	}
	for _, tc := range []struct{ job, verdict, fix string }{
		{"report", "report is paused", "workq-tui --redis " + srv.Addr() + " unpause report"},
		{"resize", "dead pools hold 1 of resize's 1 slots", "workq-tui --redis " + srv.Addr() + " reap dead1"},
		{"notify", "1 unique key of notify block new enqueues", ""},
	} {
		out, errOut, code := runCLI(t, input{}, "explain", addr, tc.job)
		if code != ExitFindings {
			t.Errorf("%s: exit %d, want %d (%q %q)", tc.job, code, ExitFindings, out, errOut)
		}
		first, _, _ := strings.Cut(out, "\n")
		if !strings.HasPrefix(first, tc.job+": "+tc.verdict) {
			t.Errorf("%s: first line %q, want the verdict %q", tc.job, first, tc.verdict)
		}
		if tc.fix != "" && !strings.Contains(out, "fix: "+tc.fix+"\n") {
			t.Errorf("%s: no fix %q in\n%s", tc.job, tc.fix, out)
		}
	}
	_, _, code = runCLI(t, input{}, "explain", addr, "send_emial")
	out, _, _ = runCLI(t, input{}, "explain", addr, "send_emial")
	if code != ExitFindings || !strings.Contains(out, "close names: send_email") {
		t.Errorf("typo: exit %d, out %q", code, out)
	}

	out, _, code = runCLI(t, input{}, "explain", addr, "--json", "report", "dead1")
	var got explainJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if code != ExitFindings || len(got.Jobs) != 1 || len(got.Pools) != 1 || got.Jobs[0].Causes[0].Kind != "paused" ||
		got.Pools[0].Causes[0].Kind != "dead_pool" || strings.Join(got.Pools[0].Causes[0].FixArgs, " ") != "reap dead1" {
		t.Errorf("json: exit %d, %+v", code, got)
	}

	// The fixes: unpause, reap, the unique key deleted.
	for _, args := range [][]string{{"unpause", "report", "--yes"}, {"reap", "dead1", "--yes"}} {
		if o, e, code := runCLI(t, input{}, append([]string{args[0], addr}, args[1:]...)...); code != ExitOK {
			t.Fatalf("%v: exit %d %q %q", args, code, o, e)
		}
	}
	srv.Do("DEL", k.Prefix()+"unique:notify:{\"user\":1}\n")
	for _, job := range []string{"report", "resize", "notify"} {
		// No pool runs the jobs here: how long they have waited (a
		// backlog) is not what this checks.
		out, _, code := runCLI(t, input{}, "explain", addr, job, "--wait-limit", "87600h")
		if code != ExitOK || !strings.Contains(out, job+" is running normally") {
			t.Errorf("%s after its fix: exit %d\n%s", job, code, out)
		}
	}
	if o, _, code := runCLI(t, input{}, "explain", addr); code != ExitUsage {
		t.Errorf("no argument: exit %d %q", code, o)
	}
}

// explain's recent-deaths fix is a command that runs when pasted: with
// the program's name and the connection flags, and --force for a type no
// live pool serves, which a requeue refuses without it.
func TestExplainDeathsFixRuns(t *testing.T) {
	redistest.Binary(t) // built before the pool's beat, which lasts 10 s
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("shop")
	now := redistest.Time(t, c).Unix()
	srv.Do("SADD", k.KnownJobs(), "charge", "refund")
	srv.Do("SADD", k.WorkerPools(), "live1")
	srv.Do("HSET", k.Heartbeat("live1"), "heartbeat_at", now, "started_at", now-100, "host", "web-1", "pid", 1,
		"concurrency", 2, "job_names", "charge", "worker_ids", "w1,w2")
	for i, job := range []string{"charge", "refund"} {
		srv.Do("ZADD", k.Prefix()+"dead", now-60, fmt.Sprintf(`{"name":%q,"id":"d%d","t":1,"args":{},"fails":25,"err":"declined","failed_at":%d}`, job, i, now-60))
	}
	for _, tc := range []struct {
		job   string
		force bool
	}{{"charge", false}, {"refund", true}} {
		out, errOut, code := runCLI(t, input{}, "explain", "--redis", srv.Addr(), "-n", "shop", tc.job)
		if code != ExitFindings {
			t.Fatalf("%s: exit %d %q %q", tc.job, code, out, errOut)
		}
		_, after, ok := strings.Cut(out, "died in the last")
		_, fix, ok2 := strings.Cut(after, "fix: ")
		if !ok || !ok2 {
			t.Fatalf("%s: no fix for the deaths in\n%s", tc.job, out)
		}
		fix, _, _ = strings.Cut(fix, "\n")
		if !strings.HasPrefix(fix, "workq-tui --redis "+srv.Addr()+" --namespace shop ") || strings.Contains(fix, "--force") != tc.force {
			t.Errorf("%s: fix %q, want the connection flags and --force %v", tc.job, fix, tc.force)
		}
		// The pool beats on while the fix runs.
		srv.Do("HSET", k.Heartbeat("live1"), "heartbeat_at", redistest.Time(t, c).Unix())
		if o, code := runPasted(t, fix+" --yes"); code != 0 {
			t.Errorf("%s: pasted, %q exits %d: %s", tc.job, fix, code, o)
		}
		if n := redistest.Do(t, c, "LLEN", k.Queue(tc.job)); n != int64(1) {
			t.Errorf("%s: after the fix its queue holds %v jobs, want 1", tc.job, n)
		}
	}
	if n := redistest.Do(t, c, "ZCARD", k.Prefix()+"dead"); n != int64(0) {
		t.Errorf("the dead set keeps %v jobs", n)
	}
}
