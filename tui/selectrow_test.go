package tui

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/model"
)

// The row under the cursor keeps its status colour: a selected dead pool
// still has its DEAD in the dead style, a selected drifted type its DRIFT.
func TestSelectedRowKeepsStatusColour(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	st := newStyles(r, defaultTheme())
	p := model.Pool{ID: "p1", Status: model.StatusDead}
	row := renderPoolRow(&p, poolColumns(120, nil), time.Unix(1795964400, 0), true, 120, st)
	if want := statusStyle(model.StatusDead, st).Render(statusMarker(model.StatusDead)); !strings.Contains(row, want) {
		t.Fatalf("selected dead pool row %q lacks %q", row, want)
	}
	snap := fixture()
	model.Analyze(snap, model.DefaultDeadAfter)
	v := jobTypesView{}.setSize(120, 20).(jobTypesView)
	v = v.setSnapshot(snap, nil).(jobTypesView)
	for i := 0; i < len(snap.JobTypes); i++ {
		out := v.render(renderContext{st: st, now: fixedNow})
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, st.cursor.Render(">")) && strings.Contains(l, "DRIFT") && !strings.Contains(l, st.dead.Render("DRIFT")) {
				t.Fatalf("selected DRIFT lost its colour: %q", l)
			}
		}
		nv, _ := v.update(keyMsg("j"))
		v = nv.(jobTypesView)
	}
}
