package tui

import (
	"strings"
	"testing"
)

// At 80 columns the footer of every view, the Jobs view's too, keeps
// "? help" and "q quit".
func TestFooterKeepsHelpAndQuitAt80(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := newTest(t, o, 80, 24)
	for i := range tabCount(m) {
		m = step(t, m, keyMsg(string(rune('1'+i))))
		check := func(m Model, where string) {
			lines := strings.Split(m.View(), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, "? help") || !strings.Contains(last, "q quit") {
				t.Errorf("%s: footer %q", where, last)
			}
		}
		check(m, m.focused().title())
	}
	f := deadFixture()
	mj, _ := openJobs(t, f, false, 80, 24)
	lines := strings.Split(mj.View(), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "? help") || !strings.Contains(last, "q quit") {
		t.Errorf("Jobs: footer %q", last)
	}
}
