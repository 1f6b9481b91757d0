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

// TestNamespaceWholeAtEveryWidth: the first line keeps the verdict and the
// namespace's whole name from 160 columns down to 60 (a typo in -n must
// be readable); Redis's clock, the age's words and the address give way.
func TestNamespaceWholeAtEveryWidth(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	for _, width := range []int{160, 120, 100, 80, 60} {
		first := strings.Split(newTest(t, o, width, 24).View(), "\n")[0]
		if !strings.Contains(first, "3 problems: 2 dead pools, 1 drift") || !strings.HasSuffix(strings.TrimRight(first, " "), "ns work") && !strings.Contains(first, "ns work  redis ") {
			t.Errorf("at %d: %q", width, first)
		}
	}
}
