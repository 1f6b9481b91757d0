package tui

import (
	"strings"
	"testing"
)

// esc in the Jobs view clears the marks, and says so; the Jobs view stays.
func TestSetsEscClearsMarks(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 40)
	m = drive(t, m, keys("j", "j", "j", " ", "j", " ")...)
	if v := jobsView(t, m); len(v.marked) != 2 {
		t.Fatalf("marked %d", len(v.marked))
	}
	tab := tabIndex(m)
	m = drive(t, m, keys("esc")...)
	if v := jobsView(t, m); len(v.marked) != 0 {
		t.Fatalf("esc left %d marks", len(v.marked))
	}
	if tabIndex(m) != tab || !strings.Contains(statusOf(m), "2 marks cleared") {
		t.Fatalf("esc: tab %d (was %d), status %q", tabIndex(m), tab, statusOf(m))
	}
}
