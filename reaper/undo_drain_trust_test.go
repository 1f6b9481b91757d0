package reaper

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// The undo of a drain trusts its journal no more than any other undo's: a
// journal naming a queue or a set outside the namespace, one of another
// namespace, and one changed after it was written are refused before
// anything is planned.
func TestDrainUndoTrustsNoPlantedJournal(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	d := undoJournal(t)
	plant := func(queue, set string) *journal.Action {
		t.Helper()
		w, err := d.Create(journal.Header{Address: "test", Namespace: "work", Op: journal.OpQueuePark, Command: "jobs queue mail park"})
		if err != nil {
			t.Fatal(err)
		}
		job := []byte(`{"name":"mail","id":"a1","t":1,"args":{}}`)
		seq, err := w.Intent(journal.Intent{Items: []journal.Item{{Queue: queue, Set: set, Old: job, New: job, Score: "1"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(seq, journal.Commit{Codes: "d", Counts: []int64{0}, Aheads: [][]byte{nil}}); err != nil {
			t.Fatal(err)
		}
		if err := w.End(journal.End{Done: 1}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		a, err := d.Read(w.ID())
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	work := redisq.NewKeys("work")
	for _, tc := range []struct {
		what, queue, set string
	}{
		{"a queue outside the namespace", "billing:jobs:mail", "work:dead"},
		{"a set outside the namespace", "work:jobs:mail", "billing:dead"},
	} {
		_, err := PlanUndo(context.Background(), c, work, plant(tc.queue, tc.set))
		if !errors.Is(err, ErrUndoRefused) || !strings.Contains(err.Error(), "outside namespace") {
			t.Errorf("%s: %v, want refused", tc.what, err)
		}
	}
	a := plant("work:jobs:mail", "work:dead")
	if _, err := PlanUndo(context.Background(), c, redisq.NewKeys("billing"), a); !errors.Is(err, ErrUndoRefused) {
		t.Errorf("another namespace: %v, want refused", err)
	}
	a.Altered = "record 2 changed"
	if _, err := PlanUndo(context.Background(), c, work, a); !errors.Is(err, ErrUndoRefused) {
		t.Errorf("a changed journal: %v, want refused", err)
	}
	a.Altered = ""
	if p, err := PlanUndo(context.Background(), c, work, a); err != nil || len(p.Items) != 1 {
		t.Errorf("the journal as written: %d items, %v", len(p.Items), err)
	}
}
