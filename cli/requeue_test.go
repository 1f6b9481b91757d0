package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestRequeueCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	key := k.InProgress("mail:send", "deadbeefdeadbeefdeadbeef")
	srv.Do("RPUSH", key, "j1", "j2", "j3")
	srv.Do("SET", k.Lock("mail:send"), 3)
	srv.Do("HSET", k.LockInfo("mail:send"), "deadbeefdeadbeefdeadbeef", 3)
	addr := "--redis=" + srv.Addr()
	before := redistest.Dump(t, c, "*")

	// Refusals leave Redis alone and say why in one line.
	for _, tc := range []struct {
		name  string
		tty   bool
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"read-only, before connecting", false, "", []string{"--redis=127.0.0.1:1", "--read-only", "requeue", key}, 1, "refused with --read-only"},
		{"no key", false, "", []string{addr, "requeue"}, 2, "at least one"},
		{"not an in-progress key", false, "", []string{addr, "requeue", "work:jobs:mail:send"}, 1, "not an in-progress list"},
		{"missing list", false, "", []string{addr, "requeue", k.InProgress("x", "y")}, 1, "no such in-progress list"},
		{"no terminal, no --yes", false, "y\n", []string{addr, "requeue", key}, 1, "--yes"},
		{"operator says no", true, "n\n", []string{addr, "requeue", key}, 1, "aborted"},
		{"dry run", false, "", []string{addr, "requeue", "--dry-run", key}, 0, ""},
		{"not for requeue", false, "", []string{addr, "requeue", "--all-dead", key}, 2, "does not apply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, input{stdin: tc.stdin, tty: tc.tty}, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if lines := errorLines(stderr); lines > 1 {
				t.Errorf("error takes %d lines: %q", lines, stderr)
			}
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Fatal("Redis changed")
			}
		})
	}
	out, _, _ := runCLI(t, input{stdin: "", tty: false}, addr, "requeue", "--dry-run", key)
	for _, want := range []string{"3 -> work:jobs:mail:send", "lock", "3 -> 0", "orphan", "Dry run"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}

	out, stderr, code := runCLI(t, input{stdin: "yes\n", tty: true}, addr, "requeue", "--batch", "2", key)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "3 jobs requeued") {
		t.Errorf("output:\n%s", out)
	}
	if n, err := redis.Int(redistest.Do(t, c, "LLEN", k.Queue("mail:send")), nil); err != nil || n != 3 {
		t.Errorf("queue has %d jobs (%v), want 3", n, err)
	}
	if v, err := redis.Int(redistest.Do(t, c, "GET", k.Lock("mail:send")), nil); err != nil || v != 0 {
		t.Errorf("lock = %d (%v), want 0", v, err)
	}
}

func TestRepairLocksCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.WorkerPools(), "p1")
	srv.Do("RPUSH", k.InProgress("a:b", "p1"), "j1")
	srv.Do("SET", k.Lock("a:b"), 5)
	srv.Do("SET", k.MaxConcurrency("a:b"), 5)
	srv.Do("HSET", k.LockInfo("a:b"), "p1", 1, "gone", 4)
	addr := "--redis=" + srv.Addr()
	before := redistest.Dump(t, c, "*")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"read-only", []string{"--redis=127.0.0.1:1", "--read-only", "repair-locks", "a:b"}, 1, "refused with --read-only"},
		{"unknown job", []string{addr, "repair-locks", "a:b", "nope"}, 1, "unknown job type"},
		{"no terminal", []string{addr, "repair-locks", "a:b"}, 1, "--yes"},
		{"no --batch", []string{addr, "repair-locks", "--batch=3", "a:b"}, 2, "does not apply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, input{stdin: "", tty: false}, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Fatal("Redis changed")
			}
		})
	}
	out, _, code := runCLI(t, input{stdin: "", tty: false}, addr, "repair-locks", "--dry-run", "a:b")
	if code != 0 || !strings.Contains(out, "5 -> 1") || !strings.Contains(out, "lock_info[gone]  4 -> removed (not in worker_pools)") || !strings.Contains(out, "max_concurrency 5") {
		t.Errorf("dry run (exit %d):\n%s", code, out)
	}
	out, stderr, code := runCLI(t, input{stdin: "", tty: false}, addr, "repair-locks", "--yes", "a:b")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "a:b: lock 1, lock_info p1=1") {
		t.Errorf("output:\n%s", out)
	}
	out, _, code = runCLI(t, input{stdin: "", tty: false}, addr, "repair-locks", "a:b")
	if code != 0 || !strings.Contains(out, "Nothing to repair") {
		t.Errorf("second run (exit %d):\n%s", code, out)
	}
}
