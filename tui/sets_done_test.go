package tui

import (
	"testing"
)

// The Jobs view hears that an action ended (actionDone): after one of
// its own (requeue, delete, edit, copy) it drops its marks and reads its
// page again; another action's end leaves it as it was.
func TestSetsActionDone(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 40)
	m = drive(t, m, keys(" ", " ")...)
	v := jobsView(t, m)
	if len(v.marked) != 2 {
		t.Fatalf("%d marks, want 2", len(v.marked))
	}
	reads := f.readCount()
	next, cmd := v.update(actionDone{kind: actionReap})
	runCmd(cmd)
	if w := next.(setsView); f.readCount() != reads || len(w.marked) != 2 {
		t.Fatalf("a reap's end: %d reads, %d marks", f.readCount()-reads, len(w.marked))
	}
	for _, kind := range []actionKind{actionJobsRequeue, actionJobsDelete, actionJobsEdit, actionJobsDuplicate} {
		reads := f.readCount()
		next, cmd := v.update(actionDone{kind: kind})
		runCmd(cmd)
		if w := next.(setsView); f.readCount() != reads+1 || len(w.marked) != 0 || !w.loading {
			t.Errorf("%s's end: %d reads, %d marks, loading %v", kind, f.readCount()-reads, len(w.marked), w.loading)
		}
	}
}
