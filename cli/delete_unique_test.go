package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestDeleteUnique: a unique key whose name ends in a newline byte, as
// gocraft/work writes it, is addressed by job and arguments. The plan
// shows it; --dry-run and --read-only leave it; --yes deletes it with an
// audit line and a journal; undo sets it back with its value and what was
// left of its time to live. A key rewritten after the plan is left alone.
func TestDeleteUnique(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	key := "work:unique:digest:{\"n\":1}\n"
	value := `{"name":"digest","id":"held1","t":1,"args":{"n":1},"unique":true}`
	redistest.Do(t, c, "SET", key, value, "EX", 86400)
	redistest.Do(t, c, "SET", "work:unique:digest:{\"n\":2}\n", "1", "EX", 3600)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	exists := func() bool {
		n, _ := redis.Int(c.Do("EXISTS", key))
		return n == 1
	}

	out, stderr, code := runCLI(t, input{}, addr, al, "delete-unique", "digest", `{"n":1}`, "--dry-run")
	if code != 0 || !strings.Contains(out, `"work:unique:digest:{\"n\":1}\n"`) || !strings.Contains(out, "job held1") ||
		!strings.Contains(out, "expires in 23h") || !strings.Contains(out, "Dry run") || !exists() {
		t.Fatalf("dry run: exit %d: %s\n%s", code, stderr, out)
	}
	if _, stderr, code := runCLI(t, input{}, addr, al, "--read-only", "delete-unique", "digest", `{"n":1}`, "--yes"); code != 1 || !strings.Contains(stderr, "read-only") || !exists() {
		t.Fatalf("read-only: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, input{}, addr, al, "delete-unique", "digest"); code != 2 || errorLines(stderr) != 1 {
		t.Fatalf("no arguments: exit %d: %s", code, stderr)
	}
	out, stderr, code = runCLI(t, input{}, addr, al, "delete-unique", "digest", `{"n":1}`, `{"n":3}`, "--yes")
	if code != 0 || exists() || !strings.Contains(out, "Done: 1 unique key deleted") || !strings.Contains(out, "no such unique key") {
		t.Fatalf("delete: exit %d: %s\n%s", code, stderr, out)
	}
	if n, _ := redis.Int(c.Do("EXISTS", "work:unique:digest:{\"n\":2}\n")); n != 1 {
		t.Fatal("a key not named was deleted")
	}
	lines := auditLines(t, auditPath)
	if len(lines) != 1 || !strings.Contains(lines[0], "action=delete-unique") || !journalIDRe.MatchString(lines[0]) {
		t.Fatalf("audit lines %q", lines)
	}
	id := journalIDRe.FindStringSubmatch(lines[0])[1]

	out, stderr, code = runCLI(t, input{}, addr, al, "undo", "--yes", id)
	if code != 0 {
		t.Fatalf("undo: exit %d: %s\n%s", code, stderr, out)
	}
	if v, _ := redis.String(c.Do("GET", key)); v != value {
		t.Fatalf("undo put back %q, want %q\n%s", v, value, out)
	}
	if ttl, _ := redis.Int64(c.Do("TTL", key)); ttl <= 86000 || ttl > 86400 {
		t.Fatalf("undo put the key back with TTL %d, want what was left of 86400", ttl)
	}
}

// TestExplainUniqueBesideAWaitingCopy: a unique key left behind (no copy
// of its arguments waits) is found while another copy of the type waits
// in the queue with a key of its own, and only it is named in the fix.
func TestExplainUniqueBesideAWaitingCopy(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	redistest.Do(t, c, "SADD", "work:known_jobs", "digest")
	redistest.Do(t, c, "LPUSH", "work:jobs:digest", `{"name":"digest","id":"w2","t":1,"args":{"n":2},"unique":true}`)
	redistest.Do(t, c, "SET", "work:unique:digest:{\"n\":2}\n", "1", "EX", 86400)
	redistest.Do(t, c, "SET", "work:unique:digest:{\"n\":1}\n", "1", "EX", 86400)
	out, stderr, _ := runCLI(t, input{}, "--redis="+srv.Addr(), "explain", "digest")
	if !strings.Contains(out, "1 unique key of digest block new enqueues while no copy waits") ||
		!strings.Contains(out, `delete-unique digest '{"n":1}'`) || strings.Contains(out, `'{"n":2}'`) {
		t.Fatalf("explain:\n%s%s", out, stderr)
	}
}
