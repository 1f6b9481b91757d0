package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestGoldenSizes: each tab at 60x20, 80x24 and 160x45, the sizes an
// operator meets (a split pane, a default terminal, a full screen). At 60
// columns a table drops its least useful columns instead of cutting the
// titles of the others.
func TestGoldenSizes(t *testing.T) {
	f := newFakeSets()
	f.add("dead", `{"name":"send_email","id":"se1","t":1795960000,"fails":3,"err":"smtp: 421 too busy","failed_at":1795960000,"args":{"to":"ops@example.com"}}`, "1795960000")
	for _, size := range [][2]int{{60, 20}, {80, 24}, {160, 45}} {
		w, h := size[0], size[1]
		for i, view := range []string{"pools", "job_types", "orphans", "workers", "jobs"} {
			t.Run(fmt.Sprintf("%s_%dx%d", view, w, h), func(t *testing.T) {
				m, _ := openJobs(t, f, false, w, h)
				m = press(t, m, fmt.Sprint(i+1))
				v := m.View()
				checkScreen(t, v, w, h)
				for _, l := range strings.Split(v, "\n") {
					if isTitleRow(l) && strings.Contains(l, "…") {
						t.Errorf("a column title is cut: %q", l)
					}
				}
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

// isTitleRow reports whether l is a table's column titles.
func isTitleRow(l string) bool {
	for _, title := range []string{"STATUS POOL", "JOB ", "KEY ", "WORKER", "DIED "} {
		if strings.Contains(l, title) && strings.ToUpper(l) == l {
			return true
		}
	}
	return false
}
