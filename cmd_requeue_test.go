package main

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// rqRun runs the command line as main would and returns stdout, stderr and
// the exit status.
func rqRun(t *testing.T, stdin string, tty bool, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{stdin: strings.NewReader(stdin), stdinIsTTY: tty, stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := exitCode(e.run(context.Background(), args), &errb)
	return out.String(), errb.String(), code
}

func rqCmdDo(t *testing.T, c redis.Conn, cmd string, args ...interface{}) {
	t.Helper()
	if _, err := c.Do(cmd, args...); err != nil {
		t.Fatalf("%s %v: %v", cmd, args, err)
	}
}

func TestRequeueCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	key := k.InProgress("mail:send", "deadbeefdeadbeefdeadbeef")
	rqCmdDo(t, c, "RPUSH", key, "j1", "j2", "j3")
	rqCmdDo(t, c, "SET", k.Lock("mail:send"), 3)
	rqCmdDo(t, c, "HSET", k.LockInfo("mail:send"), "deadbeefdeadbeefdeadbeef", 3)
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
			_, stderr, code := rqRun(t, tc.stdin, tc.tty, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if lines := strings.Count(strings.TrimSuffix(stderr, "Run 'workq-tui --help' for usage.\n"), "\n"); lines > 1 {
				t.Errorf("error takes %d lines: %q", lines, stderr)
			}
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Fatal("Redis changed")
			}
		})
	}
	out, _, _ := rqRun(t, "", false, addr, "requeue", "--dry-run", key)
	for _, want := range []string{"3 -> work:jobs:mail:send", "lock", "3 -> 0", "orphan", "Dry run"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}

	out, stderr, code := rqRun(t, "yes\n", true, addr, "requeue", "--batch", "2", key)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "3 jobs requeued") {
		t.Errorf("output:\n%s", out)
	}
	if n, _ := redis.Int(c.Do("LLEN", k.Queue("mail:send"))); n != 3 {
		t.Errorf("queue has %d jobs", n)
	}
	if v, _ := redis.Int(c.Do("GET", k.Lock("mail:send"))); v != 0 {
		t.Errorf("lock = %d", v)
	}
}

func TestRepairLocksCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	rqCmdDo(t, c, "SADD", k.WorkerPools(), "p1")
	rqCmdDo(t, c, "RPUSH", k.InProgress("a:b", "p1"), "j1")
	rqCmdDo(t, c, "SET", k.Lock("a:b"), 5)
	rqCmdDo(t, c, "SET", k.MaxConcurrency("a:b"), 5)
	rqCmdDo(t, c, "HSET", k.LockInfo("a:b"), "p1", 1, "gone", 4)
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
			_, stderr, code := rqRun(t, "", false, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Fatal("Redis changed")
			}
		})
	}
	out, _, code := rqRun(t, "", false, addr, "repair-locks", "--dry-run", "a:b")
	if code != 0 || !strings.Contains(out, "5 -> 1") || !strings.Contains(out, "lock_info[gone]  4 -> removed (not in worker_pools)") || !strings.Contains(out, "max_concurrency 5") {
		t.Errorf("dry run (exit %d):\n%s", code, out)
	}
	out, stderr, code := rqRun(t, "", false, addr, "repair-locks", "--yes", "a:b")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "a:b: lock 1, lock_info p1=1") {
		t.Errorf("output:\n%s", out)
	}
	out, _, code = rqRun(t, "", false, addr, "repair-locks", "a:b")
	if code != 0 || !strings.Contains(out, "Nothing to repair") {
		t.Errorf("second run (exit %d):\n%s", code, out)
	}
}
