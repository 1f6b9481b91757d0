package tui

import (
	"strings"
	"testing"
)

// TestRemappedKeyTakesEffect: reap_all bound to Z opens the reap dialog on
// Z, X does nothing any more, and the help says Z.
func TestRemappedKeyTakesEffect(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	o.Bindings = map[string][]string{"reap_all": {"Z"}, "cancel": {"n"}}
	m := newTest(t, o, 120, 30)
	if view := press(t, m, "X").View(); strings.Contains(view, "y: run it") {
		t.Fatalf("X still opens the reap dialog:\n%s", view)
	}
	m = press(t, m, "Z")
	if view := m.View(); !strings.Contains(view, "y: run it") {
		t.Fatalf("Z does not open the reap dialog:\n%s", view)
	}
	// q still cancels a dialog, whatever cancel is bound to.
	if view := press(t, m, "q").View(); strings.Contains(view, "y: run it") {
		t.Fatalf("q did not cancel:\n%s", view)
	}
	if view := press(t, press(t, m, "n"), "?").View(); !strings.Contains(view, "Z reap all") || strings.Contains(view, "X reap all") {
		t.Fatalf("the help does not show the new key:\n%s", view)
	}
}

// TestChosenColumns: the columns a view is given are the ones it shows,
// in that order; the others keep all of theirs.
func TestChosenColumns(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	o.Columns = map[string][]string{"pools": {"pool", "status", "beat"}}
	m := newTest(t, o, 120, 30)
	lines := strings.Split(m.View(), "\n")
	header := lines[2]
	if !strings.HasPrefix(strings.TrimSpace(header), "POOL") || strings.Contains(header, "HOST:PID") || strings.Contains(header, "STARTED") {
		t.Fatalf("pools columns: %q", header)
	}
	if i, j := strings.Index(header, "STATUS"), strings.Index(header, "BEAT"); i < 0 || j < i {
		t.Fatalf("pools columns out of order: %q", header)
	}
	// The row under the titles holds the pool's ID first and its status.
	if row := lines[3]; !strings.Contains(row, "aaaabbbbccccddddeeeeffff") || !strings.Contains(row, "DEAD") || strings.Contains(row, "worker-a") {
		t.Fatalf("pools row: %q", row)
	}
	jt := press(t, m, "tab").View()
	if !strings.Contains(jt, "LOCKINFO") || !strings.Contains(jt, "TREND") {
		t.Fatalf("job types lost columns it was not given:\n%s", jt)
	}
}
