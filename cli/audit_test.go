package cli

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestAuditOfEveryWrite: reap, requeue, repair-locks, pause and unpause
// each append exactly one line when they execute, in the screen's format;
// a dry run, a refusal and a no at the prompt append none.
func TestAuditOfEveryWrite(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	now, err := redis.Int64s(c.Do("TIME"))
	if err != nil {
		t.Fatal(err)
	}
	const dead, orphan = "deaddeaddeaddeaddeaddead", "0rphan0rphan0rphan0rphan"
	srv.Do("SADD", k.KnownJobs(), "mail", "sms")
	srv.Do("SADD", k.WorkerPools(), dead)
	srv.Do("HSET", k.Heartbeat(dead), "heartbeat_at", now[0]-120, "job_names", "mail")
	srv.Do("RPUSH", k.InProgress("mail", dead), "j1", "j2")
	srv.Do("SET", k.Lock("mail"), 2)
	srv.Do("HSET", k.LockInfo("mail"), dead, 2)
	srv.Do("RPUSH", k.InProgress("sms", orphan), "s1")
	srv.Do("SET", k.Lock("sms"), 7)
	srv.Do("HSET", k.LockInfo("sms"), orphan, 1)
	addr := "--redis=" + srv.Addr()
	log := filepath.Join(t.TempDir(), "state", "audit.log")
	al := "--audit-log=" + log

	writes := []struct {
		args   []string
		action string
		line   string // what the line holds after the user
	}{
		{[]string{"reap", dead}, "reap", " namespace=work action=reap targets=" + dead + " moved=2 result="},
		{[]string{"requeue", k.InProgress("sms", orphan)}, "requeue", " namespace=work action=requeue targets=work:jobs:sms:" + orphan + ":inprogress moved=1 result="},
		{[]string{"repair-locks", "sms"}, "repair-locks", " namespace=work action=repair-locks targets=sms moved=0 result="},
		{[]string{"pause", "mail"}, "pause", " namespace=work action=pause targets=mail moved=0 result=\"mail: paused; Done: 1 job type paused.\""},
		{[]string{"unpause", "mail"}, "unpause", " namespace=work action=unpause targets=mail moved=0 result=\"mail: unpaused; Done: 1 job type unpaused.\""},
	}
	for i, w := range writes {
		before := redistest.Dump(t, c, "*")
		for _, refused := range [][]string{
			append([]string{addr, al, "--dry-run"}, w.args...),
			append([]string{"--redis=127.0.0.1:1", al, "--read-only", "--yes"}, w.args...),
		} {
			if _, stderr, code := runCLI(t, input{}, refused...); code != 0 && code != 1 {
				t.Fatalf("%q: exit %d: %s", refused, code, stderr)
			}
		}
		if _, stderr, code := runCLI(t, input{tty: true, stdin: "n\n"}, append([]string{addr, al}, w.args...)...); code != 1 || !strings.Contains(stderr, "aborted") {
			t.Fatalf("%s, answered no: exit %d: %s", w.action, code, stderr)
		}
		// A log that cannot be written stops the write before Redis changes.
		_, stderr, code := runCLI(t, input{}, append([]string{addr, "--audit-log=/dev/null/audit.log", "--yes"}, w.args...)...)
		if code != 1 || !strings.Contains(stderr, "audit log: nothing changed") || errorLines(stderr) != 1 {
			t.Errorf("%s, unwritable audit log: exit %d, %q", w.action, code, stderr)
		}
		if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
			t.Fatalf("%s: a dry run, a refusal, a no or an unwritable audit log changed Redis", w.action)
		}
		if n := len(auditLines(t, log)); n != i {
			t.Fatalf("before the %s: audit log has %d lines, want %d", w.action, n, i)
		}
		out, stderr, code := runCLI(t, input{}, append([]string{addr, al, "--yes"}, w.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s\n%s", w.action, code, stderr, out)
		}
		lines := auditLines(t, log)
		if len(lines) != i+1 {
			t.Fatalf("after the %s: audit log has %d lines, want %d:\n%s", w.action, len(lines), i+1, strings.Join(lines, "\n"))
		}
		if !strings.Contains(lines[i], " redis="+srv.Addr()+w.line) {
			t.Errorf("%s: audit line\n%s\nlacks %q", w.action, lines[i], w.line)
		}
	}
}

// TestAuditLogPath: without --audit-log the line goes to the user's state
// directory.
func TestAuditLogPath(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.KnownJobs(), "mail")
	addr := "--redis=" + srv.Addr()

	state := t.TempDir()
	env := map[string]string{"XDG_STATE_HOME": state}
	getenv := func(key string) string { return env[key] }
	if _, stderr, code := runCLI(t, input{getenv: getenv}, addr, "pause", "--yes", "mail"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if lines := auditLines(t, filepath.Join(state, "workq-tui", "audit.log")); len(lines) != 1 || !strings.Contains(lines[0], "action=pause targets=mail") {
		t.Errorf("default audit log: %q", lines)
	}

}
