package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// auditLines is the audit log's lines (none when it does not exist).
func auditLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// writeStats is what INFO commandstats counts of the commands that write,
// and the connections received, since the last CONFIG RESETSTAT.
func writeStats(t *testing.T, c redis.Conn) (writes []string, conns string) {
	t.Helper()
	info := redistest.Do(t, c, "INFO", "commandstats").([]byte)
	for _, l := range strings.Split(string(info), "\r\n") {
		name, _, _ := strings.Cut(strings.TrimPrefix(l, "cmdstat_"), ":")
		switch name {
		case "set", "setnx", "del", "unlink", "eval", "evalsha", "eval_ro", "evalsha_ro", "script", "fcall",
			"sadd", "srem", "lpush", "rpush", "lrem", "rpoplpush", "lmove", "hset", "hdel", "incrby", "expire", "rename":
			writes = append(writes, l)
		}
	}
	stats := string(redistest.Do(t, c, "INFO", "stats").([]byte))
	for _, l := range strings.Split(stats, "\r\n") {
		if v, ok := strings.CutPrefix(l, "total_connections_received:"); ok {
			conns = v
		}
	}
	return writes, conns
}

func TestPauseCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.KnownJobs(), "send_email", "report", "resize", "hashy")
	srv.Do("SET", k.Paused("report"), "1")
	srv.Do("HSET", k.Paused("hashy"), "not", "a string")
	srv.Do("LPUSH", k.Queue("send_email"), `{"name":"send_email","id":"a1","t":1700000000,"args":{}}`)
	addr := "--redis=" + srv.Addr()
	log := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + log
	before := redistest.Dump(t, c, "*")

	// Refusals and dry runs leave Redis and the audit log alone, and say
	// why in one line.
	for _, tc := range []struct {
		name  string
		tty   bool
		stdin string
		args  []string
		code  int
		want  string // on stdout for exit 0, else on stderr
	}{
		{"no job", false, "", []string{addr, al, "pause"}, 2, "at least one job type"},
		{"no job to unpause", false, "", []string{addr, al, "unpause"}, 2, "at least one job type"},
		{"empty name", false, "", []string{addr, al, "pause", ""}, 2, "empty job type name"},
		{"force is for pause", false, "", []string{addr, al, "unpause", "--force", "report"}, 2, "does not apply"},
		{"dry run", false, "", []string{addr, al, "pause", "--dry-run", "send_email"}, 0, "SET work:jobs:send_email:paused 1\n"},
		{"dry run of unpause", false, "", []string{addr, al, "unpause", "--dry-run", "report"}, 0, "DEL work:jobs:report:paused\n"},
		{"no terminal, no --yes", false, "y\n", []string{addr, al, "pause", "send_email"}, 1, "--yes"},
		{"operator says no", true, "n\n", []string{addr, al, "pause", "send_email"}, 1, "aborted"},
		{"already paused", false, "", []string{addr, al, "pause", "--yes", "report"}, 0, "report: already paused: nothing to do\n"},
		{"not paused", false, "", []string{addr, al, "unpause", "--yes", "send_email"}, 0, "send_email: not paused: nothing to do\n"},
		{"unknown name", false, "", []string{addr, al, "pause", "--yes", "send_emial"}, 1, `pause "send_emial": unknown job type`},
		{"wrong type", false, "", []string{addr, al, "unpause", "--yes", "hashy"}, 1, "work:jobs:hashy:paused is a hash, not a string"},
		{"wrong type beside a good one", false, "", []string{addr, al, "pause", "--yes", "send_email", "hashy"}, 1, "refused, nothing changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := len(auditLines(t, log))
			out, stderr, code := runCLI(t, input{stdin: tc.stdin, tty: tc.tty}, tc.args...)
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
			// A write the script refused was executed: it has its line.
			want := lines
			if strings.HasPrefix(tc.name, "wrong type") {
				want++
			}
			if n := len(auditLines(t, log)); n != want {
				t.Errorf("audit log has %d lines, want %d", n, want)
			}
		})
	}
	if lines := auditLines(t, log); len(lines) != 2 || !strings.Contains(lines[0], "action=unpause targets=hashy moved=0 result=\"error: ") {
		t.Errorf("audit lines of the refused writes: %q", lines)
	}

	// The unknown name is refused in one line that names --force.
	_, stderr, _ := runCLI(t, input{}, addr, al, "pause", "--yes", "send_emial")
	if !strings.Contains(stderr, "--force") || errorLines(stderr) != 1 {
		t.Errorf("unknown name: %q", stderr)
	}

	// --yes: the key set, the result shown, one audit line.
	out, stderr, code := runCLI(t, input{}, addr, al, "pause", "--yes", "send_email", "report")
	if code != 0 || !strings.Contains(out, "send_email: paused\nreport: already paused\nDone: 1 job type paused.\n") {
		t.Fatalf("pause --yes: exit %d, stdout:\n%s\nstderr: %s", code, out, stderr)
	}
	if v, err := redis.String(c.Do("GET", k.Paused("send_email"))); err != nil || v != "1" {
		t.Errorf("pause key %q, %v", v, err)
	}
	lines := auditLines(t, log)
	if len(lines) != 3 || !strings.Contains(lines[2], " namespace=work action=pause targets=send_email,report moved=0 result=\"send_email: paused; report: already paused; Done: 1 job type paused.\"") ||
		!strings.Contains(lines[2], " redis="+srv.Addr()+" ") {
		t.Errorf("audit log after the pause: %q", lines)
	}

	// The y on a terminal, and the key gone.
	out, stderr, code = runCLI(t, input{stdin: "y\n", tty: true}, addr, al, "unpause", "report", "send_email")
	if code != 0 || !strings.Contains(out, "Unpause 2 job types (report, send_email)? [y/N]") || !strings.Contains(out, "Done: 2 job types unpaused.") {
		t.Fatalf("unpause: exit %d, stdout:\n%s\nstderr: %s", code, out, stderr)
	}
	for _, job := range []string{"send_email", "report"} {
		if n, _ := redis.Int(c.Do("EXISTS", k.Paused(job))); n != 0 {
			t.Errorf("%s still paused", job)
		}
	}

	// --force pauses a name nobody knows.
	out, stderr, code = runCLI(t, input{}, addr, al, "pause", "--yes", "--force", "new_job")
	if code != 0 || !strings.Contains(out, "new_job is not a known job type") {
		t.Fatalf("pause --force: exit %d, stdout:\n%s\nstderr: %s", code, out, stderr)
	}
	if v, _ := redis.String(c.Do("GET", k.Paused("new_job"))); v != "1" {
		t.Errorf("forced pause key %q", v)
	}
	if n := len(auditLines(t, log)); n != 5 {
		t.Errorf("audit log has %d lines, want 5 (one per executed write)", n)
	}
}

// TestPauseReadOnly: with --read-only, pause and unpause are refused
// before connecting; a dry run is let through and writes nothing.
func TestPauseReadOnly(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.KnownJobs(), "send_email")
	srv.Do("SET", k.Paused("send_email"), "1")
	addr := "--redis=" + srv.Addr()
	log := filepath.Join(t.TempDir(), "audit.log")
	for _, args := range [][]string{
		{addr, "--read-only", "--audit-log=" + log, "pause", "--yes", "report"},
		{addr, "--read-only", "--audit-log=" + log, "unpause", "--yes", "send_email"},
		{"--read-only", addr, "unpause", "send_email"},
	} {
		redistest.Do(t, c, "CONFIG", "RESETSTAT")
		_, stderr, code := runCLI(t, input{tty: true, stdin: "y\n"}, args...)
		if code != ExitError || !strings.Contains(stderr, "refused with --read-only") || errorLines(stderr) != 1 {
			t.Errorf("%q: exit %d, %q", args, code, stderr)
		}
		if writes, conns := writeStats(t, c); len(writes) > 0 || conns != "0" {
			t.Errorf("%q: writes %q, %s connections", args, writes, conns)
		}
	}
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	out, stderr, code := runCLI(t, input{}, addr, "--read-only", "--audit-log="+log, "unpause", "--dry-run", "send_email")
	if code != 0 || !strings.Contains(out, "DEL work:jobs:send_email:paused") || !strings.Contains(out, "Dry run: nothing changed.") {
		t.Errorf("read-only dry run: exit %d, stdout:\n%s\nstderr: %s", code, out, stderr)
	}
	if writes, conns := writeStats(t, c); len(writes) > 0 || conns == "0" {
		t.Errorf("read-only dry run: writes %q, %s connections", writes, conns)
	}
	if n, _ := redis.Int(c.Do("EXISTS", k.Paused("send_email"))); n != 1 {
		t.Error("the dry run unpaused")
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Errorf("the audit log was written: %v", err)
	}
}
