package cli

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestThrottleCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.KnownJobs(), "send_email", "hashy")
	srv.Do("SET", k.MaxConcurrency("send_email"), "0")
	srv.Do("HSET", k.MaxConcurrency("hashy"), "not", "a string")
	addr := "--redis=" + srv.Addr()
	log := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + log
	before := redistest.Dump(t, c, "*")

	// Refusals and dry runs leave Redis and the audit log alone, and say
	// why in one line.
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // on stdout for exit 0, else on stderr
	}{
		{"no job", []string{addr, al, "throttle"}, 2, "needs a job type name and a limit"},
		{"no limit", []string{addr, al, "throttle", "send_email"}, 2, "needs a limit: a positive integer"},
		{"zero", []string{addr, al, "throttle", "send_email", "0"}, 2, `"0": the limit must be a positive integer`},
		{"not a number", []string{addr, al, "throttle", "send_email", "2x"}, 2, `"2x": the limit must be a positive integer`},
		{"too many", []string{addr, al, "throttle", "send_email", "2", "3"}, 2, "one job type and one limit"},
		{"reset with a limit", []string{addr, al, "throttle", "--reset", "send_email", "2"}, 2, "no limit"},
		{"empty name", []string{addr, al, "throttle", "", "2"}, 2, "empty job type name"},
		{"unknown name", []string{addr, al, "throttle", "--yes", "send_emial", "2"}, 1, `throttle "send_emial": unknown job type`},
		{"read-only", []string{addr, al, "--read-only", "throttle", "--yes", "send_email", "2"}, 1, "refused with --read-only"},
		{"dry run", []string{addr, al, "throttle", "--dry-run", "send_email", "2"}, 0, "SET work:jobs:send_email:max_concurrency 2\n"},
		{"no --yes", []string{addr, al, "throttle", "send_email", "2"}, 1, "--yes"},
		{"nothing to do", []string{addr, al, "throttle", "--reset", "--yes", "send_email"}, 0, "Nothing to do."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, input{}, tc.args...)
			got := stderr
			if code == 0 {
				got = out
			}
			if code != tc.code || !strings.Contains(got, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, stderr, tc.code, tc.want)
			}
			if n := errorLines(stderr); n > 1 || (code != 0) != (n == 1) {
				t.Errorf("error takes %d lines: %q", n, stderr)
			}
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Fatalf("Redis changed:\n%v\n%v", before, after)
			}
			if n := len(auditLines(t, log)); n != 0 {
				t.Errorf("audit log has %d lines, want none", n)
			}
		})
	}

	// A write: its plan, one audit line naming its journal, and the mark.
	out, stderr, code := runCLI(t, input{}, addr, al, "throttle", "--yes", "send_email", "2")
	if code != 0 || !strings.Contains(out, "max_concurrency now 0 (no cap), after 2") || !strings.Contains(out, "send_email: max_concurrency set to 2 (was 0)") {
		t.Fatalf("throttle: exit %d\n%s\n%s", code, out, stderr)
	}
	if v := string(srv.Do("GET", k.MaxConcurrency("send_email")).([]byte)); v != "2" {
		t.Errorf("max_concurrency %q, want 2", v)
	}
	lines := auditLines(t, log)
	if len(lines) != 1 || !strings.Contains(lines[0], " action=throttle targets=send_email ") || !strings.Contains(lines[0], " journal=") {
		t.Errorf("audit lines %q", lines)
	}
	out, _, _ = runCLI(t, input{}, addr, al, "snapshot")
	if !strings.Contains(out, "send_email: THROTTLED to 2 by ") {
		t.Errorf("snapshot does not mark the throttle:\n%s", out)
	}
	out, _, _ = runCLI(t, input{}, addr, al, "explain", "send_email")
	if !strings.Contains(out, "THROTTLED to 2 by ") || !strings.Contains(out, "max_concurrency was 0 before") {
		t.Errorf("explain does not mark the throttle:\n%s", out)
	}
	// Without that journal (another audit log) nothing is marked.
	out, _, _ = runCLI(t, input{}, addr, "--audit-log="+filepath.Join(t.TempDir(), "other.log"), "snapshot")
	if strings.Contains(out, "THROTTLED") {
		t.Errorf("snapshot marks a throttle its journal does not hold:\n%s", out)
	}

	// A key of the wrong type: the script refuses, the line says so.
	_, stderr, code = runCLI(t, input{}, addr, al, "throttle", "--yes", "hashy", "2")
	if code != 1 || !strings.Contains(stderr, "work:jobs:hashy:max_concurrency is a hash, not a string") || errorLines(stderr) != 1 {
		t.Errorf("wrong type: exit %d, %q", code, stderr)
	}
	if srv.Do("TYPE", k.MaxConcurrency("hashy")) != "hash" {
		t.Error("the hash was changed")
	}
}
