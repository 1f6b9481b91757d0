package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// A requeue from the Jobs view is journalled: u lists it, enter shows what
// it changed, U undoes it (the jobs leave the queue and are back in the
// dead set); :history and :undo are the same keys by name.
func TestDriveHistoryAndUndo(t *testing.T) {
	t.Parallel()
	for _, byName := range []bool{false, true} {
		name := map[bool]string{false: "keys", true: "commands"}[byName]
		t.Run(name, func(t *testing.T) {
			srv := redistest.Start(t)
			seed := screentest.NewSeed(t, srv, "work")
			seed.LivePool(livePool, "mail")
			seed.Dead("mail", "smtp 421", "m1", "m2")
			s := screentest.Start(t, srv)
			s.Run("jobs dead")
			s.Wait("1-2 of 2")
			s.Press("A")
			s.Wait("all 2 matching marked")
			s.Press("R")
			s.Confirm()
			s.WaitFor("the requeue", func(string) bool { return strings.Contains(s.StatusLine(), "2 jobs requeued") })
			if n := seed.Int("LLEN", seed.K.Queue("mail")); n != 2 {
				t.Fatalf("queue holds %d, want 2", n)
			}
			press(s, byName, "u", "history")
			s.Wait("› history]", "1 action", "screen jobs dead requeue", "done")
			s.Press("enter")
			s.Wait("› action ", "Call 1 (2 items)", "m1  mail", "m2  mail")
			s.Press("esc")
			s.Wait("› history]")
			press(s, byName, "U", "undo")
			s.Wait("put back 2 items?", "to put back: 2")
			s.Confirm()
			s.WaitFor("the undo", func(string) bool { return seed.Int("ZCARD", seed.K.Dead()) == 2 })
			if n := seed.Int("LLEN", seed.K.Queue("mail")); n != 0 {
				t.Errorf("queue holds %d after the undo, want 0", n)
			}
			s.Wait("2 actions")
		})
	}
}

// press presses key, or runs the command line's name when byName.
func press(s *screentest.Screen, byName bool, key, name string) {
	if byName {
		s.Run(name)
		return
	}
	s.Press(key)
}

// U outside the history does nothing and says where to go.
func TestDriveUndoOutsideHistory(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail")
	s := screentest.Start(t, srv)
	s.Wait("feedface")
	s.Press("U")
	s.WaitFor("why", func(string) bool { return strings.Contains(s.StatusLine(), "open the history with u") })
}
