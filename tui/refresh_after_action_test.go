package tui

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/model"
)

// After a reap confirmed from a dead pool's detail, the detail is read
// again: it no longer says DEAD once Redis no longer has the pool dead.
func TestPoolDetailRefreshedAfterReap(t *testing.T) {
	reaped := false
	snap := func() *model.Snapshot {
		s := fixture()
		if reaped {
			for i := range s.Pools {
				if s.Pools[i].Status == model.StatusDead {
					s.Pools[i].Status = model.StatusAlive
				}
			}
		}
		return s
	}
	o, _ := testOptions(&fakeSource{next: func(int) (*model.Snapshot, error) { return snap(), nil }})
	m := newTest(t, o, 120, 30)
	m = step(t, m, keyMsg("j"))
	if row := cursorRow(m); !strings.Contains(row, "DEAD") {
		t.Fatalf("fixture: row 2 is %q", row)
	}
	m = enter(t, m)
	if !m.opened() || !strings.Contains(m.View(), "DEAD") {
		t.Fatalf("no dead pool detail:\n%s", m.View())
	}
	m = step(t, m, keyMsg("x"))
	if !dialogOpen(m) {
		t.Fatalf("x in the detail opened no dialog; status %q", statusOf(m))
	}
	reaped = true
	m, cmd := stepCmd(m, keyMsg("y"))
	m, _ = deliver(t, m, cmd)
	if !m.opened() {
		t.Fatal("the detail was closed by the reap")
	}
	if body := m.renderBody(); strings.Contains(body, "DEAD") {
		t.Fatalf("the detail still says DEAD after the reap:\n%s", body)
	}
}
