package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// fakePauser records the plans it runs and answers as the script would
// on keys that are all strings or absent.
type fakePauser struct {
	mu    sync.Mutex
	plans []reaper.PausePlan
}

func (f *fakePauser) Pause(_ context.Context, p reaper.PausePlan) (reaper.PauseResult, error) {
	f.mu.Lock()
	f.plans = append(f.plans, p)
	f.mu.Unlock()
	res := reaper.PauseResult{Pause: p.Pause}
	for _, j := range p.Jobs {
		st := reaper.UnpauseDone
		if p.Pause {
			st = reaper.PauseDone
		}
		res.Jobs = append(res.Jobs, reaper.PauseJobResult{Name: j.Name, Key: j.Key, Status: st})
	}
	return res, nil
}

func (f *fakePauser) ran() []reaper.PausePlan {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]reaper.PausePlan(nil), f.plans...)
}

func pauseOptions(src *fakeSource) (Options, testDeps, *fakePauser) {
	o, d := testOptions(src)
	p := &fakePauser{}
	o.Writes.Pause = p
	return o, d, p
}

// selectJobType moves the Job types view's cursor to the named row.
func selectJobType(t *testing.T, m Model, name string) Model {
	t.Helper()
	m = toView(t, m, "Job types")
	m = step(t, m, keyMsg("g"))
	for i := 0; i < 5; i++ {
		if jt, ok := pickedJobType(m.focused()); ok && jt.Name == name {
			return m
		}
		m = step(t, m, keyMsg("j"))
	}
	t.Fatalf("no job type %s", name)
	return m
}

// TestPauseConfirmed: p on a job type that is not paused opens the plan,
// y pauses it, the audit log gets one line, the screen polls again and
// keeps the cursor on the job type, which the new snapshot shows paused.
func TestPauseConfirmed(t *testing.T) {
	snap := fixture()
	paused := fixture()
	for i := range paused.JobTypes {
		if paused.JobTypes[i].Name == "send_email" {
			paused.JobTypes[i].Paused = true
		}
	}
	src := &fakeSource{next: func(call int) (*model.Snapshot, error) {
		if call == 1 {
			return snap, nil
		}
		return paused, nil
	}}
	o, d, p := pauseOptions(src)
	m := selectJobType(t, newTest(t, o, 100, 30), "send_email")
	k := m.keyMap()
	if !k.get(actions.Pause).Enabled() || k.get(actions.Pause).Help().Desc != "pause" {
		t.Fatalf("p: enabled %v, help %q", k.get(actions.Pause).Enabled(), k.get(actions.Pause).Help().Desc)
	}
	m = step(t, m, keyMsg("p"))
	if !dialogOpen(m) {
		t.Fatalf("p opened no dialog; status %q", statusOf(m))
	}
	view := m.View()
	for _, want := range []string{"Pause send_email?", "workers stop taking new send_email jobs; the 6 in progress finish", "SET work:jobs:send_email:paused 1"} {
		if !strings.Contains(view, want) {
			t.Errorf("dialog lacks %q:\n%s", want, view)
		}
	}
	if len(p.ran()) != 0 {
		t.Fatal("paused before y")
	}
	calls := src.calls
	m = press(t, m, "y")
	plans := p.ran()
	if len(plans) != 1 || !plans[0].Pause || strings.Join(plans[0].Names(), ",") != "send_email" {
		t.Fatalf("plans %+v", plans)
	}
	if statusOf(m) != "paused send_email" {
		t.Errorf("status %q", statusOf(m))
	}
	if src.calls != calls+1 {
		t.Errorf("%d polls after the pause, want 1", src.calls-calls)
	}
	if len(d.audit.entries) != 1 {
		t.Fatalf("%d audit entries", len(d.audit.entries))
	}
	if e := d.audit.entries[0]; e.Action != "pause" || strings.Join(e.Targets, ",") != "send_email" || e.Result != "paused send_email" {
		t.Errorf("audit %+v", e)
	}
	if jt, ok := pickedJobType(m.focused()); !ok || jt.Name != "send_email" || !jt.Paused {
		t.Fatalf("after the pause the cursor is on %+v", jt)
	}
	if !strings.Contains(m.View(), "2 paused") {
		t.Errorf("header does not count 2 paused:\n%s", m.View())
	}
	// Now p unpauses it.
	if h := m.keyMap().get(actions.Pause).Help().Desc; h != "unpause" {
		t.Errorf("p help %q, want unpause", h)
	}
}

func TestUnpauseCancelled(t *testing.T) {
	o, d, p := pauseOptions(staticSource(fixture()))
	m := selectJobType(t, newTest(t, o, 100, 30), "resize_image")
	m = step(t, m, keyMsg("p"))
	if !dialogOpen(m) {
		t.Fatal("no dialog")
	}
	view := m.View()
	for _, want := range []string{"Unpause resize_image?", "workers start taking resize_image jobs again; 7 queued", "DEL work:jobs:resize_image:paused"} {
		if !strings.Contains(view, want) {
			t.Errorf("dialog lacks %q:\n%s", want, view)
		}
	}
	m = press(t, m, "n")
	if dialogOpen(m) || len(p.ran()) != 0 || len(d.audit.entries) != 0 || !strings.Contains(statusOf(m), "nothing was changed") {
		t.Errorf("cancel: dialog %v, plans %d, audit %d, status %q", dialogOpen(m), len(p.ran()), len(d.audit.entries), statusOf(m))
	}
}

// TestPauseAbsentWhereItDoesNotApply: no p in read-only mode, without a
// Pauser, outside the Job types view, in a queue view.
func TestPauseAbsentWhereItDoesNotApply(t *testing.T) {
	for _, tc := range []struct {
		name     string
		readOnly bool
		noPauser bool
		view     string
		inQueue  bool
	}{
		{name: "read-only", readOnly: true, view: "Job types"},
		{name: "no pauser", noPauser: true, view: "Job types"},
		{name: "pools view", view: "Pools"},
		{name: "queue view", view: "Job types", inQueue: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, p := pauseOptions(staticSource(fixture()))
			o.ReadOnly = tc.readOnly
			o.Reads.Queue = queueFixture()
			if tc.noPauser {
				o.Writes = Writes{}
			}
			m := toView(t, newTest(t, o, 100, 30), tc.view)
			if tc.inQueue {
				m = press(t, m, "enter")
			}
			if m.keyMap().get(actions.Pause).Enabled() {
				t.Fatal("p enabled")
			}
			if strings.Contains(m.View(), "p pause") {
				t.Errorf("help shows p:\n%s", m.View())
			}
			m = press(t, m, "p")
			if dialogOpen(m) || len(p.ran()) != 0 {
				t.Error("p opened a dialog or paused")
			}
		})
	}
}

func TestGoldenPauseDialog(t *testing.T) {
	for _, tc := range []struct{ name, job string }{{"pause_dialog", "send_email"}, {"unpause_dialog", "resize_image"}} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, _ := pauseOptions(staticSource(fixture()))
			m := selectJobType(t, newTest(t, o, 80, 24), tc.job)
			m = step(t, m, keyMsg("p"))
			view := m.View()
			checkScreen(t, view, 80, 24)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

func TestSummarizePause(t *testing.T) {
	out := summarizePause(reaper.PauseResult{Pause: true, Jobs: []reaper.PauseJobResult{
		{Name: "a", Status: reaper.PauseDone},
		{Name: "b\x1b", Status: reaper.PauseAlready},
		{Name: "c", Key: "work:jobs:c:paused", Status: reaper.PauseRefused, Type: "hash"},
	}})
	if !out.failed || out.summary != `paused a; b\x1b was already paused; c not changed: work:jobs:c:paused is a hash` {
		t.Errorf("%+v", out)
	}
}
