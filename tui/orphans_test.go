package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// orphanFixture holds two orphans, one with a job name that has ':' in it
// and one whose pool ID carries an escape sequence.
func orphanFixture() []model.InProgressList {
	return []model.InProgressList{
		{Key: "work:jobs:export:report:9999aaaabbbbccccddddeeee:inprogress", JobName: "export:report", PoolID: "9999aaaabbbbccccddddeeee", Length: 12},
		{Key: "work:jobs:send_email:dead\x1b[31mbeef:inprogress", JobName: "send_email", PoolID: "dead\x1b[31mbeef", Length: 1},
	}
}

// TestGoldenOrphansRender renders the Orphans view at two widths, with a
// finished scan and one still running.
func TestGoldenOrphansRender(t *testing.T) {
	st := newStyles(asciiRenderer(), defaultTheme())
	done := scanStatus{enabled: true, completed: true, doneAt: fixedNow.Add(-5 * time.Second), lastSteps: 3, lastKeys: 7}
	running := done
	running.running, running.steps, running.keys = true, 2, 4
	for _, tc := range []struct {
		name  string
		width int
		sc    scanStatus
	}{
		{"w80", 80, done},
		{"w120", 120, done},
		{"w80_scanning", 80, running},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := found(orphansView{}.setSize(tc.width, 8), orphanFixture())
			out := v.render(renderContext{st: st, now: fixedNow, scan: tc.sc})
			checkScreen(t, out, tc.width, 8)
			if strings.Contains(out, "\x1b") {
				t.Fatalf("escape reached the screen:\n%q", out)
			}
			for _, want := range []string{"export:report", `dead\x1b[31mbeef`, "KEY", "LENGTH", "last scan 5s ago"} {
				if !strings.Contains(out, want) {
					t.Errorf("view lacks %q:\n%s", want, out)
				}
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

func TestOrphansViewCursorFollowsKey(t *testing.T) {
	o := orphanFixture()
	var v view = orphansView{km: defaultKeyMap()}
	v = found(v.setSize(80, 7), o)
	v, _ = v.update(keyMsg("j"))
	if got, _ := v.(orphanPicker).pickedOrphan(); got.Key != o[1].Key {
		t.Fatalf("selected %q, want %q", got.Key, o[1].Key)
	}
	// The next scan finds a new orphan that sorts first: the cursor stays
	// on the same key.
	next := append([]model.InProgressList{{Key: "work:jobs:a:p:inprogress", JobName: "a", PoolID: "p", Length: 1}}, o...)
	v = found(v, next)
	if got, _ := v.(orphanPicker).pickedOrphan(); got.Key != o[1].Key {
		t.Fatalf("after a new scan selected %q, want %q", got.Key, o[1].Key)
	}
	v = v.(filterable).setFilter("export")
	if got, _ := v.(orphanPicker).pickedOrphan(); got.Key != o[0].Key || len(v.(orphansView).rows) != 1 {
		t.Fatalf("filter: selected %q, rows %d", got.Key, len(v.(orphansView).rows))
	}
}
