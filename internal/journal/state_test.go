package journal

import "testing"

// An action is "undone" only by an undo that put something back (or ran
// after one that did); an undo that found everything moved on says so.
func TestStateUndone(t *testing.T) {
	act := &Action{Header: Header{ID: "a1", Op: OpRequeue}, End: &End{Done: 42}}
	undo := func(id string, end *End) *Action {
		return &Action{Header: Header{ID: id, Op: OpUndo, UndoOf: "a1"}, End: end}
	}
	for _, tc := range []struct {
		name  string
		undos []*Action
		want  string
	}{
		{"none", nil, "done"},
		{"put back", []*Action{undo("u1", &End{Done: 42})}, "done, undone by u1"},
		{"nothing put back", []*Action{undo("u1", &End{Done: 0})}, "done, undo u1 put nothing back (all had moved on)"},
		{"cut short", []*Action{undo("u1", nil)}, "done, undo cut short (u1): run undo again"},
		{"finished after one that put back", []*Action{undo("u1", &End{Done: 7, Error: "stopped"}), undo("u2", &End{Done: 0})}, "done, undone by u2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := State(act, append([]*Action{act}, tc.undos...)); got != tc.want {
				t.Fatalf("state %q, want %q", got, tc.want)
			}
		})
	}
}
