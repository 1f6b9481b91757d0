package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// TestGoldenHeaderManyProblems: with problems of every kind and the demo
// badge, the verdict line keeps the address and the namespace whole at
// 80 and 60 columns: the verdict's kinds go first (the counts line names
// them), as in `--demo`.
func TestGoldenHeaderManyProblems(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {60, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			s := healthFixture()
			s.Findings = append(s.Findings,
				model.Finding{Kind: model.FindingDeadPool, Subject: "cc11"}, model.Finding{Kind: model.FindingDeadPool, Subject: "dd11"},
				model.Finding{Kind: model.FindingDrift, Subject: "export"}, model.Finding{Kind: model.FindingOrphan, Subject: "work:jobs:x:ee11:inprogress"})
			o, _ := testOptions(staticSource(s))
			o.Demo, o.Address = true, "127.0.0.1:42397"
			out := runProgram(t, o, size.w, size.h, waitText("charge_card failing"))
			checkScreen(t, out, size.w, size.h)
			var verdict string
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "[DEMO]") {
					verdict = l
				}
			}
			if !strings.Contains(verdict, "✖ 10 problems") || !strings.Contains(verdict, "127.0.0.1:42397") || !strings.HasSuffix(strings.TrimRight(verdict, " "), "ns work") {
				t.Errorf("the verdict line %q does not keep the count, the address and the namespace", verdict)
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}
