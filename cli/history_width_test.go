package cli

import (
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
