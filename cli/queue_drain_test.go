package cli

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// drainState is a mail queue of 60 jobs, every third with args.bad 1, one
// of those unique with its key.
func drainState(t *testing.T, c interface {
	Do(string, ...any) (any, error)
}) {
	t.Helper()
	for i := 0; i < 60; i++ {
		bad := 0
		if i%3 == 1 {
			bad = 1
		}
		job := fmt.Sprintf(`{"name":"mail","id":"m%02d","t":1700000000,"args":{"bad":%d,"n":%d}}`, i, bad, i)
		if _, err := c.Do("LPUSH", "work:jobs:mail", job); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Do("LPUSH", "work:jobs:mail", `{"name":"mail","id":"u1","t":1700000000,"args":{"bad":1},"unique":true}`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do("SET", `work:unique:mail:{"bad":1}`+"\n", "1"); err != nil {
		t.Fatal(err)
	}
}

// Park by query: the plan, a dry run that changes nothing, the park with
// its audit line and journal, and the undo that puts the namespace back
// as it was; a delete by query and its undo likewise.
func TestQueueDrainCommands(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	drainState(t, c)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "state", "audit.log")
	al := "--audit-log=" + auditPath
	before := redistest.Dump(t, c, "work:*")

	out, stderr, code := runCLI(t, input{}, addr, al, "jobs", "queue", "mail", "park", "--where", "args.bad:1", "--dry-run")
	if code != 0 || !strings.Contains(out, "21 jobs match") || !strings.Contains(out, "1 unique job") || !strings.Contains(out, "at the queue's head") || !strings.Contains(out, "Dry run") {
		t.Fatalf("dry run: exit %d: %s\n%s", code, stderr, out)
	}
	if !reflect.DeepEqual(redistest.Dump(t, c, "work:*"), before) {
		t.Fatal("dry run changed Redis")
	}
	if _, stderr, code := runCLI(t, input{}, addr, al, "jobs", "queue", "mail", "park", "--where", "args.bad:1"); code != 1 || !strings.Contains(stderr, "--yes") {
		t.Fatalf("park without a terminal: exit %d: %s", code, stderr)
	}
	out, stderr, code = runCLI(t, input{}, addr, al, "jobs", "queue", "mail", "park", "--where", "args.bad:1", "--yes", "--rate", "1000")
	if code != 0 || !strings.Contains(out, "Done: 21 jobs parked, 1 unique key deleted.") {
		t.Fatalf("park: exit %d: %s\n%s", code, stderr, out)
	}
	if n, _ := c.Do("ZCARD", "work:dead"); n != int64(21) {
		t.Fatalf("dead holds %v", n)
	}
	if n, _ := c.Do("LLEN", "work:jobs:mail"); n != int64(40) {
		t.Fatalf("queue holds %v", n)
	}
	lines := auditLines(t, auditPath)
	if len(lines) != 1 || !strings.Contains(lines[0], "action=queue-park") || !journalIDRe.MatchString(lines[0]) {
		t.Fatalf("audit lines %q", lines)
	}
	out, stderr, code = runCLI(t, input{}, addr, al, "undo", "--yes")
	if code != 0 || !strings.Contains(out, "put back 21") || !strings.Contains(out, "1 unique keys put back") {
		t.Fatalf("undo: exit %d: %s\n%s", code, stderr, out)
	}
	if got := redistest.Dump(t, c, "work:*"); !reflect.DeepEqual(got, before) {
		t.Fatalf("after the undo the namespace differs:\n%v\nwant\n%v", got, before)
	}

	out, stderr, code = runCLI(t, input{}, addr, al, "jobs", "queue", "mail", "delete", "--where", "args.n:7", "--yes")
	if code != 0 || !strings.Contains(out, "Done: 1 job deleted.") {
		t.Fatalf("delete: exit %d: %s\n%s", code, stderr, out)
	}
	out, stderr, code = runCLI(t, input{}, addr, al, "undo", "--yes")
	if code != 0 || !strings.Contains(out, "put back 1") {
		t.Fatalf("undo of the delete: exit %d: %s\n%s", code, stderr, out)
	}
	if got := redistest.Dump(t, c, "work:*"); !reflect.DeepEqual(got, before) {
		t.Fatal("after the second undo the namespace differs")
	}
	// Nothing matches: the plan says so and nothing is written.
	out, _, code = runCLI(t, input{}, addr, al, "jobs", "queue", "mail", "park", "--where", "args.n:999", "--yes")
	if code != 0 || !strings.Contains(out, "0 jobs match") || len(auditLines(t, auditPath)) != 4 {
		t.Fatalf("no match: exit %d:\n%s", code, out)
	}
}
