package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// find reports each job in its place: a queue (with the jobs before it), a
// live pool's in-progress list and a dead pool's, retry, scheduled, dead, a
// busy worker and a unique key with its TTL; an id that is nowhere exits 4.
// It runs under --read-only and writes nothing.
func TestFind(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "mail", "sms")
	redistest.Do(t, c, "SADD", "work:worker_pools", "live", "gone")
	redistest.Do(t, c, "HSET", "work:worker_pools:live", "job_names", "mail,sms", "heartbeat_at", now, "worker_ids", "w1,w2")
	redistest.Do(t, c, "HSET", "work:worker_pools:gone", "job_names", "mail", "heartbeat_at", now-3600, "worker_ids", "w3")
	job := func(id, name string, extra string) string {
		return fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{"order_id":"ord_%s"}%s}`, name, id, now-10, id, extra)
	}
	redistest.Do(t, c, "LPUSH", "work:jobs:mail", job("q1", "mail", ""), job("q2", "mail", ""), job("q3", "mail", ""))
	redistest.Do(t, c, "LPUSH", "work:jobs:mail:live:inprogress", job("p1", "mail", ""))
	redistest.Do(t, c, "LPUSH", "work:jobs:mail:gone:inprogress", job("p2", "mail", ""))
	redistest.Do(t, c, "ZADD", "work:retry", now+60, job("r1", "mail", fmt.Sprintf(`,"fails":1,"err":"x","failed_at":%d`, now-5)))
	redistest.Do(t, c, "ZADD", "work:scheduled", now+600, job("s1", "sms", `,"unique":true`))
	redistest.Do(t, c, "SET", `work:unique:sms:{"order_id":"ord_s1"}`+"\n", "1", "EX", 900)
	redistest.Do(t, c, "ZADD", "work:dead", now-100, job("d1", "mail", fmt.Sprintf(`,"fails":4,"err":"gateway timeout","failed_at":%d`, now-100)))
	// A unique key whose job is in no other place still blocks a new
	// enqueue of its arguments.
	redistest.Do(t, c, "SET", `work:unique:mail:{"account":"acc_9","n":17}`+"\n", "1", "EX", 600)
	redistest.Do(t, c, "HSET", "work:worker:w1", "job_name", "mail", "job_id", "p1", "started_at", now-30, "args", `{"order_id":"ord_p1"}`, "checkin_at", now-3, "checkin", "ok")
	before := redistest.Dump(t, c, "*")
	addr := "--redis=" + srv.Addr()

	places := func(args ...string) ([]map[string]any, int) {
		t.Helper()
		out, stderr, code := runCLI(t, input{}, append([]string{addr, "--read-only", "find", "--json"}, args...)...)
		var ps []map[string]any
		if err := json.Unmarshal([]byte(out), &ps); err != nil {
			t.Fatalf("%v: %v: %s %s", args, err, out, stderr)
		}
		return ps, code
	}
	for _, tc := range []struct {
		id    string
		want  []string // place kinds
		check func(p []map[string]any) bool
	}{
		{"q2", []string{"queues"}, func(p []map[string]any) bool { return p[0]["position"] == 1.0 }},
		{"q1", []string{"queues"}, func(p []map[string]any) bool { return p[0]["position"] == 0.0 && p[0]["paused"] == nil }},
		{"p1", []string{"in-progress", "workers"}, func(p []map[string]any) bool {
			return p[0]["pool_status"] == "alive" && p[1]["worker"] == "w1" && p[1]["checkin_at"] == float64(now-3)
		}},
		{"p2", []string{"in-progress"}, func(p []map[string]any) bool { return p[0]["pool_status"] == "dead" }},
		{"r1", []string{"retry"}, func(p []map[string]any) bool { return p[0]["at"] == float64(now+60) }},
		{"s1", []string{"scheduled", "unique"}, func(p []map[string]any) bool {
			ttl, _ := p[1]["ttl"].(float64)
			return p[0]["at"] == float64(now+600) && ttl > 800 && ttl <= 900
		}},
		{"d1", []string{"dead"}, func(p []map[string]any) bool { return p[0]["at"] == float64(now-100) }},
	} {
		t.Run(tc.id, func(t *testing.T) {
			ps, code := places(tc.id)
			var kinds []string
			for _, p := range ps {
				kinds = append(kinds, p["place"].(string))
			}
			if code != 0 || !reflect.DeepEqual(kinds, tc.want) || !tc.check(ps) {
				t.Fatalf("exit %d, places %v", code, ps)
			}
		})
	}
	if ps, code := places("nowhere"); code != ExitNotFound || len(ps) != 0 {
		t.Fatalf("an id that is nowhere: exit %d, %v", code, ps)
	}
	if ps, code := places("--in", "dead,retry", "q1", "d1", "r1"); code != 0 || len(ps) != 2 {
		t.Fatalf("--in dead,retry: exit %d, %v", code, ps)
	}
	if ps, _ := places("--where", "args.order_id:ord_p1"); len(ps) != 2 {
		t.Fatalf("--where args: %v", ps)
	}
	if ps, _ := places("--where", "err:timeout"); len(ps) != 1 || ps[0]["id"] != "d1" {
		t.Fatalf("--where err: %v", ps)
	}
	// A query by name and arguments scans the unique keys too: the key of
	// s1 once (found through its job), the one of no job with the id null.
	if ps, _ := places("--where", "args.order_id:ord_s1"); len(ps) != 2 || ps[1]["place"] != "unique" || ps[1]["id"] != "s1" {
		t.Fatalf("--where args of a unique job: %v", ps)
	}
	if ps, _ := places("--where", "job:mail args.account:acc_9 args.n:17"); len(ps) != 1 || ps[0]["place"] != "unique" || ps[0]["id"] != nil || ps[0]["name"] != "mail" {
		t.Fatalf("--where on a unique key of no job: %v", ps)
	}
	if ps, code := places("--where", "job:sms args.account:acc_9"); code != ExitNotFound || len(ps) != 0 {
		t.Fatalf("--where on another name: exit %d, %v", code, ps)
	}
	if ps, _ := places("--where", "args.account:acc_9 err:x"); len(ps) != 0 {
		t.Fatalf("a key has no error, yet err: found %v", ps)
	}
	if out, _, _ := runCLI(t, input{}, addr, "find", "--wide", "--where", "args:acc_9"); !strings.Contains(out, "unique      - mail  unique key work:unique:mail:") || !strings.Contains(out, "its job in no other place, TTL ") {
		t.Fatalf("text of a unique key of no job:\n%s", out)
	}
	out, _, code := runCLI(t, input{}, addr, "find", "q2", "p2", "s1")
	for _, want := range []string{"1 job(s) run before it", "pool gone is dead", "run_at "} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("text lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	// The key was set to expire in 900 s, a moment ago.
	if !regexp.MustCompile(`, TTL (8\d\d|900)s\n`).MatchString(out) {
		t.Fatalf("text lacks the unique key's TTL:\n%s", out)
	}
	if _, stderr, code := runCLI(t, input{}, "--redis=127.0.0.1:1", "find", "--where", "erorr:x"); code != 2 || !strings.Contains(stderr, "did you mean err:") {
		t.Fatalf("bad query: exit %d %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, input{}, addr, "find", "--in", "queue", "x"); code != 2 || !strings.Contains(stderr, "unknown place") {
		t.Fatalf("bad --in: exit %d %q", code, stderr)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Fatal("find changed Redis")
	}
}

// find says a queued job's type is paused: nothing before it runs, nor
// it, until it is unpaused.
func TestFindPausedQueue(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	redistest.Do(t, c, "SADD", "work:known_jobs", "refund")
	redistest.Do(t, c, "LPUSH", "work:jobs:refund", `{"name":"refund","id":"f1","t":1,"args":{}}`, `{"name":"refund","id":"f2","t":1,"args":{}}`)
	redistest.Do(t, c, "SET", "work:jobs:refund:paused", "1")
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "find", "f2")
	if code != 0 || !strings.Contains(out, "paused") || strings.Contains(out, "run before it") {
		t.Errorf("find in a paused queue: exit %d, %q %q", code, out, stderr)
	}
	out, _, _ = runCLI(t, input{}, "--redis", srv.Addr(), "find", "--json", "f2")
	var ps []map[string]any
	if err := json.Unmarshal([]byte(out), &ps); err != nil || len(ps) != 1 || ps[0]["paused"] != true || ps[0]["position"] != 1.0 {
		t.Errorf("find --json in a paused queue: %v %s", err, out)
	}
}
