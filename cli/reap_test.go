package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestReapCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	now := redistest.Time(t, c).Unix()
	const dead, live = "deaddeaddeaddeaddeaddead", "11ve11ve11ve11ve11ve11ve"
	srv.Do("SADD", k.KnownJobs(), "mail:send", "sms")
	srv.Do("SADD", k.WorkerPools(), dead, live)
	srv.Do("HSET", k.Heartbeat(dead), "heartbeat_at", now-120, "job_names", "mail:send,sms")
	srv.Do("HSET", k.Heartbeat(live), "heartbeat_at", now, "job_names", "mail:send")
	srv.Do("RPUSH", k.InProgress("mail:send", dead), "j1", "j2", "j3")
	srv.Do("RPUSH", k.InProgress("sms", dead), "s1")
	srv.Do("RPUSH", k.InProgress("mail:send", live), "l1")
	srv.Do("SET", k.Lock("mail:send"), 4)
	srv.Do("HSET", k.LockInfo("mail:send"), dead, 3, live, 1)
	srv.Do("SET", k.Lock("sms"), 1)
	srv.Do("HSET", k.LockInfo("sms"), dead, 1)
	addr := "--redis=" + srv.Addr()
	before := redistest.Dump(t, c, "*")

	for _, tc := range []struct {
		name  string
		tty   bool
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"read-only, before connecting", false, "", []string{"--redis=127.0.0.1:1", "--read-only", "reap", "--all-dead"}, 1, "refused with --read-only"},
		{"nothing to reap named", false, "", []string{addr, "reap"}, 2, "pool IDs or --all-dead"},
		{"both", false, "", []string{addr, "reap", "--all-dead", dead}, 2, "not both"},
		{"unknown pool", false, "", []string{addr, "reap", "nosuchpool"}, 1, "pool nosuchpool: unknown pool: not in work:worker_pools"},
		{"alive pool", false, "", []string{addr, "reap", dead, live}, 1, "pool " + live + " is alive"},
		{"no terminal, no --yes", false, "y\n", []string{addr, "reap", "--all-dead"}, 1, "--yes"},
		{"operator says no", true, "no\n", []string{addr, "reap", dead}, 1, "aborted"},
		{"dry run", false, "", []string{addr, "reap", "--all-dead", "--dry-run"}, 0, ""},
		{"no dead pool in another namespace", false, "", []string{addr, "-n", "other", "reap", "--all-dead"}, 0, ""},
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

	out, _, _ := runCLI(t, input{stdin: "", tty: false}, addr, "reap", "--all-dead", "--dry-run")
	for _, want := range []string{"pool " + dead + " (last heartbeat 2m0", "mail:send", "work:jobs:mail:send", "4 -> 1", "3 -> deleted",
		"Total: 4 jobs back to their queues, 1 pool removed.", "Dry run: nothing changed."} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}

	out, stderr, code := runCLI(t, input{stdin: "y\n", tty: true}, addr, "reap", "--batch", "2", dead)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Reap pool " + dead + " and requeue 4 jobs? [y/N]", "pool " + dead + ": reaped",
		"mail:send: 3 jobs requeued, lock -3, now 1", "sms: 1 job requeued, lock -1, now 0", "Done: 4 jobs requeued, 1 of 1 pool reaped."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "requeued 4 of 4 jobs") {
		t.Errorf("progress on stderr: %q", stderr)
	}
	after := redistest.Dump(t, c, "*")
	want := map[string]string{
		k.Queue("mail:send"):            "list:j1\nj2\nj3",
		k.Queue("sms"):                  "list:s1",
		k.Lock("mail:send"):             "string:1",
		k.LockInfo("mail:send"):         "hash:" + live + "=1",
		k.Lock("sms"):                   "string:0",
		k.WorkerPools():                 "set:" + live,
		k.InProgress("mail:send", live): "list:l1",
	}
	for key, v := range want {
		if after[key] != v {
			t.Errorf("%s = %q, want %q", key, after[key], v)
		}
	}
	for _, key := range []string{k.Heartbeat(dead), k.InProgress("mail:send", dead), k.InProgress("sms", dead), k.LockInfo("sms")} {
		if _, ok := after[key]; ok {
			t.Errorf("%s still there", key)
		}
	}
}

// TestReapAllDeadOnUnreadableNamespace: when worker_pools cannot be read,
// "no dead pool" would be a false all-clear; reap says so and fails.
func TestReapAllDeadOnUnreadableNamespace(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	srv.Do("SET", "broken:worker_pools", "not a set")
	before := redistest.Dump(t, c, "*")
	out, stderr, code := runCLI(t, input{stdin: "", tty: false}, "--redis="+srv.Addr(), "-n", "broken", "reap", "--all-dead", "--yes")
	if code != 1 || !strings.Contains(stderr, "could not be read in full") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and one line giving the reason", code, out, stderr)
	}
	if strings.Contains(out, "nothing to reap") {
		t.Errorf("claims there is nothing to reap: %q", out)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Fatal("Redis changed")
	}
}

// TestReapNothingShowsNamespaceCleaned: the namespace of the "nothing to
// reap" line is printed with its escapes visible.
func TestReapNothingShowsNamespaceCleaned(t *testing.T) {
	srv := redistest.Start(t)
	ns := "work\x1b[2J\u202e"
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "--namespace", ns, "reap", "--all-dead", "--dry-run")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := "No dead pool in namespace " + textsafe.Clean(ns) + ": nothing to reap."; !strings.Contains(out, want) || strings.ContainsAny(out, "\x1b\u202e") {
		t.Fatalf("output %q, want %q and no raw escape", out, want)
	}
}
