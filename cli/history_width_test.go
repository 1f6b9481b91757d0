package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// widest is the display width of out's widest line.
func widest(out string) (int, string) {
	n, line := 0, ""
	for _, l := range strings.Split(out, "\n") {
		if w := textsafe.Width(l); w > n {
			n, line = w, l
		}
	}
	return n, line
}

// history, history ID and undo --dry-run fit 80 columns, with jobs that
// moved on listed; --wide prints the long lines whole.
func TestHistoryAndUndoFit80Columns(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	addr := "--redis=" + srv.Addr()
	al := "--audit-log=" + filepath.Join(t.TempDir(), "audit.log")
	if out, stderr, code := runCLI(t, input{}, addr, al, "jobs", "dead", "requeue", "--all", "--yes"); code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", code, stderr, out)
	}
	// A worker takes 30 of the 40: the undo plan lists them moved on.
	for i := 0; i < 30; i++ {
		redistest.Do(t, c, "RPOPLPUSH", "work:jobs:mail", "work:jobs:mail:p1:inprogress")
	}
	dry, _, code := runCLI(t, input{}, addr, al, "undo", "--dry-run")
	if code != 0 || !strings.Contains(dry, "to put back: 10 ") || !strings.Contains(dry, ": 30, left alone") {
		t.Fatalf("undo --dry-run: exit %d:\n%s", code, dry)
	}
	out, stderr, code := runCLI(t, input{}, addr, al, "undo", "--yes")
	if code != 1 || !strings.Contains(out, "put back 10") || !strings.Contains(stderr, "30 items of 40 not put back") {
		t.Fatalf("undo: exit %d: %s\n%s", code, stderr, out)
	}
	id := journalIDRe.FindStringSubmatch(strings.Join(auditLines(t, strings.TrimPrefix(al, "--audit-log=")), "\n"))[1]
	hist, _, _ := runCLI(t, input{}, addr, al, "history")
	var undoID string
	for _, l := range strings.Split(hist, "\n") {
		if strings.Contains(l, "undo "+id) {
			undoID = strings.Fields(l)[0]
		}
	}
	shown, _, _ := runCLI(t, input{}, addr, al, "history", undoID)
	for name, text := range map[string]string{"history": hist, "undo --dry-run": dry, "history " + undoID: shown} {
		if n, l := widest(text); n > 80 || n == 0 {
			t.Errorf("%s: a line of %d columns:\n%s\n%s", name, n, l, text)
		}
	}
	if !strings.Contains(hist, "undone by "+undoID) {
		t.Errorf("history does not say the requeue was undone by %s:\n%s", undoID, hist)
	}
	for _, args := range [][]string{{"history", "--wide"}, {"undo", "--dry-run", "--wide", id}} {
		out, _, _ := runCLI(t, input{}, append([]string{addr, al}, args...)...)
		if n, _ := widest(out); n <= 80 {
			t.Errorf("%v: widest line %d columns, want the lines whole:\n%s", args, n, out)
		}
	}
}

// The plans and results of writes (a set's requeue and delete, a queue's
// park by query, a throttle, a pause) fit 80 columns; --wide prints their
// lines whole.
func TestWritesFit80Columns(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	for i := 0; i < 20; i++ {
		redistest.Do(t, c, "LPUSH", "work:jobs:mail", fmt.Sprintf(`{"name":"mail","id":"q%02d","t":1700000000,"args":{"n":%d}}`, i, i%2))
	}
	addr := "--redis=" + srv.Addr()
	al := "--audit-log=" + filepath.Join(t.TempDir(), "audit.log")
	for _, args := range [][]string{
		{"jobs", "dead", "requeue", "--all", "--dry-run"},
		{"jobs", "retry", "delete", "--all", "--dry-run"},
		{"jobs", "queue", "mail", "park", "--where", "args.n:1", "--dry-run"},
		{"jobs", "queue", "mail", "park", "--where", "args.n:1", "--yes"},
		{"throttle", "mail", "1", "--dry-run"},
		{"pause", "mail", "--dry-run"},
	} {
		name := strings.Join(args, " ")
		out, stderr, code := runCLI(t, input{}, append([]string{addr, al}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s\n%s", name, code, stderr, out)
		}
		if n, l := widest(proseOf(out)); n > 80 {
			t.Errorf("%s: a line of %d columns:\n%s\n%s", name, n, l, out)
		}
		if args[len(args)-1] != "--dry-run" {
			continue
		}
		wide, _, _ := runCLI(t, input{}, append([]string{addr, al}, append(args, "--wide")...)...)
		if n, _ := widest(wide); n <= 80 {
			t.Errorf("%s --wide: no line wider than 80 columns:\n%s", name, wide)
		}
	}
}

// proseOf is out without the lines that carry a command to paste (a
// command's own line, the journal's line), which are never wrapped.
func proseOf(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, "`workq-tui ") && !strings.HasPrefix(strings.TrimSpace(l), "workq-tui ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
