package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// The sparkline draws one cell a minute, the latest minutes that fit,
// scaled to the busiest one shown; nothing for an hour without failures.
func TestFailureSparkline(t *testing.T) {
	st := newStyles(asciiRenderer(), defaultTheme())
	hour := make([]int, 60)
	hour[0], hour[58], hour[59] = 7, 2, 8
	for _, tc := range []struct {
		name    string
		minutes []int
		width   int
		want    string
	}{
		{"quiet hour", make([]int, 60), 80, ""},
		{"whole hour", hour, 80, "fail/min 1h █" + strings.Repeat("▁", 57) + "▃█ max 8"},
		{"latest minutes", hour, 40, "fail/min 21m " + strings.Repeat("▁", 19) + "▃█ max 8"},
		{"too narrow", hour, 20, ""},
	} {
		got := failureSparkline(tc.minutes, tc.width, st)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if lineWidth(got) > tc.width {
			t.Errorf("%s: %d wide at %d", tc.name, lineWidth(got), tc.width)
		}
	}
}

// The header of a namespace with a failing type and a dead pool at 80x24
// and 60x20: the problems, the failures' sparkline second, and the set
// sizes kept beside the dead pool's count.
func TestGoldenHeaderFailingAndDeadPool(t *testing.T) {
	s := healthFixture()
	s.Pools = append(s.Pools, model.Pool{ID: "cc11bb22cc33dd44ee55ff66"})
	s.Sets = model.SetCounts{Retry: 12, Scheduled: 3, Dead: 1240}
	model.Analyze(s, model.DefaultDeadAfter)
	s.Findings = model.WithJobHealth(model.Findings(s), s.Jobs)
	var out strings.Builder
	for _, size := range [][2]int{{80, 24}, {60, 20}} {
		o, _ := testOptions(staticSource(s))
		screen := runProgram(t, o, size[0], size[1], waitText("charge_card failing"))
		checkScreen(t, screen, size[0], size[1])
		lines := strings.Split(screen, "\n")
		if !strings.HasPrefix(lines[1], "fail/min ") {
			t.Errorf("at %d: second line %q, want the sparkline", size[0], lines[1])
		}
		for _, want := range []string{"retry 12 · sched 3 · dead jobs 1,240", "1 dead"} {
			if !strings.Contains(screen, want) {
				t.Errorf("at %d: no %q:\n%s", size[0], want, screen)
			}
		}
		out.WriteString(strings.Join(lines[:6], "\n") + "\n\n")
	}
	golden.RequireEqual(t, []byte(out.String()))
}
