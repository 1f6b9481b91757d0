package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/reaper"
)

// fakeJournal is a journal in memory: the history reads it, the undoer
// plans from it and marks what it undid.
type fakeJournal struct {
	mu      sync.Mutex
	actions []*journal.Action // oldest first
	undone  []string          // the IDs Undo ran on, in order
	undoID  int
}

func (f *fakeJournal) History(context.Context) (HistoryList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := HistoryList{Dir: "/home/ops/.local/state/workq-tui/journal"}
	for i := len(f.actions) - 1; i >= 0; i-- {
		l.Actions = append(l.Actions, journal.Summarize(f.actions[i], f.actions))
	}
	return l, nil
}

func (f *fakeJournal) HistoryAction(_ context.Context, id string) (*journal.Action, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.actions {
		if a.Header.ID == id {
			return a, nil
		}
	}
	return nil, fmt.Errorf("action %s: %w", id, journal.ErrNotFound)
}

// PlanUndo plans from the journal's items the way reaper.PlanUndo does for
// a finished action: every item, refusing the repairs.
func (f *fakeJournal) PlanUndo(ctx context.Context, id string) (reaper.UndoPlan, error) {
	a, err := f.HistoryAction(ctx, id)
	if err != nil {
		return reaper.UndoPlan{}, err
	}
	p := reaper.UndoPlan{Of: a, Op: a.Header.Op}
	if a.Header.Op == journal.OpReap {
		return p, fmt.Errorf("action %s (%s) %w: it repaired broken state", id, a.Header.Command, reaper.ErrUndoRefused)
	}
	for _, c := range a.Calls {
		for _, it := range c.Intent.Items {
			p.Items = append(p.Items, reaper.UndoItem{Item: it})
		}
	}
	return p, nil
}

func (f *fakeJournal) Undo(_ context.Context, plan reaper.UndoPlan, progress reaper.UndoProgress) (reaper.UndoResult, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.undoID++
	id := fmt.Sprintf("20261129-150100-%03d", f.undoID)
	of := plan.Of.Header.ID
	f.undone = append(f.undone, of)
	f.actions = append(f.actions, &journal.Action{
		Header: journal.Header{ID: id, Time: fixedNow, Address: "redis.internal:6379", Namespace: "work", Op: journal.OpUndo, Command: "screen undo " + of, UndoOf: of},
		End:    &journal.End{Done: int64(len(plan.Items))},
	})
	if progress != nil {
		progress(int64(len(plan.Items)), int64(len(plan.Items)))
	}
	return reaper.UndoResult{Restored: int64(len(plan.Items)), Calls: 1}, id, nil
}

func (f *fakeJournal) undos() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.undone...)
}

// sampleJournal is three actions: a requeue of dead jobs, a pause and a
// reap, the reap the newest.
func sampleJournal() *fakeJournal {
	h := func(id, op, command string, ago time.Duration) journal.Header {
		return journal.Header{ID: id, Time: fixedNow.Add(-ago), User: "ops", Address: "redis.internal:6379", Namespace: "work", Op: op, Command: command}
	}
	job := func(id string) journal.Item {
		return journal.Item{Set: "work:dead", Score: "1795964000", Queue: "work:jobs:send_email",
			Old: []byte(`{"name":"send_email","id":"` + id + `","t":1795960000,"args":{"to":"ops@example.com"},"fails":4}`)}
	}
	commit := &journal.Commit{Codes: "mm", Now: "1795964100"}
	return &fakeJournal{actions: []*journal.Action{
		{Header: h("20261129-143000-001", journal.OpRequeue, "screen jobs dead requeue", 30*time.Minute),
			Calls: []journal.Call{{Seq: 1, Intent: journal.Intent{Items: []journal.Item{job("j1"), job("j2")}}, Commit: commit}},
			End:   &journal.End{Done: 2}},
		{Header: h("20261129-144500-001", journal.OpPause, "screen pause", 15*time.Minute),
			Calls: []journal.Call{{Seq: 1, Intent: journal.Intent{Items: []journal.Item{{Key: &journal.Key{Name: "work:jobs:send_email:paused"}}}}, Commit: &journal.Commit{Statuses: []string{"paused"}}}},
			End:   &journal.End{Done: 1}},
		{Header: h("20261129-145500-001", journal.OpReap, "screen reap", 5*time.Minute),
			Calls: []journal.Call{{Seq: 1, Intent: journal.Intent{Items: []journal.Item{{Lists: map[string]int64{"work:jobs:send_email:6f1a:inprogress": 3}}}}}},
			End:   &journal.End{Done: 3}},
	}}
}

// historyOptions is the test screen with the journal j as its history and
// undoer.
func historyOptions(j *fakeJournal) (Options, testDeps) {
	o, d := testOptions(staticSource(fixture()))
	o.Reads.History = j
	o.Writes.Undo = j
	return o, d
}

func historyOf(t *testing.T, m Model) historyView {
	t.Helper()
	h, ok := m.top().(historyView)
	if !ok {
		t.Fatalf("the view on top is %T, not the history", m.top())
	}
	return h
}

// u, enter, esc, U, y: the history, what an action changed, back, the
// undo's plan, and the undo run through the Undoer with one audit line
// naming the undone action and the undo's journal; the history is read
// again and keeps its cursor.
func TestHistoryUndo(t *testing.T) {
	j := sampleJournal()
	o, d := historyOptions(j)
	m := newTest(t, o, 100, 30)
	m = press(t, m, "u")
	h := historyOf(t, m)
	if len(h.items) != 3 || h.items[0].ID != "20261129-145500-001" {
		t.Fatalf("history, newest first: %+v", h.items)
	}
	if v := m.View(); !strings.Contains(v, "screen jobs dead requeue") || !strings.Contains(v, "3 actions") {
		t.Fatalf("the history view lacks its actions:\n%s", v)
	}
	// The requeue, the oldest, is the last row.
	m = press(t, m, "G")
	m = press(t, m, "enter")
	if _, ok := m.top().(actionView); !ok {
		t.Fatalf("enter pushed %T, not the action's view", m.top())
	}
	v := m.View()
	for _, want := range []string{"Action 20261129-143000-001: screen jobs dead requeue", "Call 1 (2 items): ran, codes mm", `j1  send_email  died_at 2026-11-29T14:53:20Z  work:dead -> work:jobs:send_email`} {
		if !strings.Contains(v, want) {
			t.Errorf("the action's view lacks %q:\n%s", want, v)
		}
	}
	m = press(t, m, "esc")
	historyOf(t, m)
	m = press(t, m, "U")
	if !dialogOpen(m) {
		t.Fatalf("U opened no dialog; status %q", statusOf(m))
	}
	if !strings.Contains(dialogTitle(m), "Undo 20261129-143000-001: put back 2 items?") || !strings.Contains(dialogText(m), "to put back: 2") {
		t.Fatalf("the undo's dialog: %q\n%s", dialogTitle(m), dialogText(m))
	}
	if len(j.undos()) != 0 {
		t.Fatal("the undo ran before y")
	}
	m = press(t, m, "y")
	if got := j.undos(); len(got) != 1 || got[0] != "20261129-143000-001" {
		t.Fatalf("undos run: %v", got)
	}
	if statusOf(m) != "Undo: put back 2" {
		t.Errorf("status after the undo: %q", statusOf(m))
	}
	d.audit.mu.Lock()
	entries := append([]audit.Entry(nil), d.audit.entries...)
	d.audit.mu.Unlock()
	if len(entries) != 1 {
		t.Fatalf("audit entries: %+v", entries)
	}
	e := entries[0]
	if e.Action != "undo" || e.Journal != "20261129-150100-001" || len(e.Targets) != 1 || e.Targets[0] != "20261129-143000-001" || e.Moved != 2 {
		t.Errorf("audit entry: %+v", e)
	}
	h = historyOf(t, m)
	if len(h.items) != 4 {
		t.Fatalf("the history was not read again: %+v", h.items)
	}
	if a, ok := h.pickedAction(); !ok || a.ID != "20261129-143000-001" || !strings.Contains(a.State, "undone by 20261129-150100-001") {
		t.Errorf("the cursor after the undo: %+v", a)
	}
	m = press(t, m, "esc")
	if m.opened() {
		t.Fatalf("esc left %T open", m.top())
	}
}

// The undo of a reap is refused with the reason, nothing run, nothing
// audited.
func TestHistoryUndoRefused(t *testing.T) {
	j := sampleJournal()
	o, d := historyOptions(j)
	m := newTest(t, o, 100, 30)
	m = press(t, m, "u")
	m = press(t, m, "U") // the newest: the reap
	if dialogOpen(m) {
		t.Fatal("the undo of a reap opened a dialog")
	}
	if !strings.HasPrefix(statusOf(m), "undo refused: ") || !strings.Contains(statusOf(m), "repaired broken state") {
		t.Errorf("status: %q", statusOf(m))
	}
	if len(j.undos()) != 0 || len(d.audit.entries) != 0 {
		t.Fatalf("a refused undo ran or was audited: %v %v", j.undos(), d.audit.entries)
	}
}

// u is a read: it works in read-only mode; U is a write and is refused
// there with the table's rule; without the offers each says so.
func TestHistoryReadOnlyAndUnavailable(t *testing.T) {
	o, _ := historyOptions(sampleJournal())
	o.ReadOnly = true
	m := newTest(t, o, 100, 30)
	m = press(t, m, "u")
	historyOf(t, m)
	m = press(t, m, "U")
	if dialogOpen(m) || statusOf(m) != "read-only: undo is disabled" {
		t.Errorf("U in read-only mode: dialog %v, status %q", dialogOpen(m), statusOf(m))
	}

	o, _ = testOptions(staticSource(fixture()))
	m = newTest(t, o, 100, 30)
	m = press(t, m, "u")
	if m.opened() || statusOf(m) != "history is not available here" {
		t.Errorf("u without a history: opened %v, status %q", m.opened(), statusOf(m))
	}

	o, _ = historyOptions(sampleJournal())
	o.Writes = Writes{Reap: &fakeReaper{}}
	m = newTest(t, o, 100, 30)
	m = press(t, m, "u")
	m = press(t, m, "U")
	if dialogOpen(m) || statusOf(m) != "undo is not available here" {
		t.Errorf("U without an undoer: status %q", statusOf(m))
	}
}

// U outside the history says where it applies.
func TestUndoOutsideHistory(t *testing.T) {
	o, _ := historyOptions(sampleJournal())
	m := newTest(t, o, 100, 30)
	m = press(t, m, "U")
	if dialogOpen(m) || !strings.Contains(statusOf(m), "open the history with u") {
		t.Errorf("U in the pools view: status %q", statusOf(m))
	}
}

func TestGoldenHistory(t *testing.T) {
	tests := []struct {
		name   string
		script []any
	}{
		{name: "history", script: []any{waitText("worker-a"), keyMsg("u"), waitText("screen jobs dead requeue")}},
		{name: "history_action", script: []any{waitText("worker-a"), keyMsg("u"), waitText("screen jobs dead requeue"), keyMsg("G"), keyMsg("enter"), waitText("Call 1")}},
		{name: "undo_plan", script: []any{waitText("worker-a"), keyMsg("u"), waitText("screen jobs dead requeue"), keyMsg("G"), keyMsg("U"), waitText("y: run it")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := historyOptions(sampleJournal())
			view := runProgram(t, o, 80, 24, tc.script...)
			checkScreen(t, view, 80, 24)
			golden.RequireEqual(t, []byte(view))
		})
	}
}
