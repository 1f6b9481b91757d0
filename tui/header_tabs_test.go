package tui

import (
	"strings"
	"testing"
)

// TestEveryViewNamedAtEveryWidth: from 160 columns down to 44 the header
// names every view (shortened where the full names do not fit), the
// focused one in brackets.
func TestEveryViewNamedAtEveryWidth(t *testing.T) {
	f := newFakeSets()
	for _, width := range []int{160, 120, 100, 80, 60, 44} {
		m, _ := openJobs(t, f, false, width, 24)
		m = press(t, m, "1")
		head := strings.Join(strings.Split(m.View(), "\n")[:3], "\n")
		full := []string{"[Pools]", "Job types", "Orphans", "Workers", "Jobs"}
		short := []string{"[Pools]", "Types", "Orph", "Work", "Jobs"}
		ok := func(names []string) bool {
			for _, n := range names {
				if !strings.Contains(head, n) {
					return false
				}
			}
			return true
		}
		if !ok(full) && !ok(short) {
			t.Errorf("at %d the header does not name every view:\n%s", width, head)
		}
		checkScreen(t, m.View(), width, 24)
	}
}
