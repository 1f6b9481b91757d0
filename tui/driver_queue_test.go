package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// markedInQueue opens the queue of report (r1, r2 and r3 queued, a live
// pool serving it), filters it to job id and marks it with A.
func markedInQueue(t *testing.T, id string) (*screentest.Screen, *screentest.Seed) {
	t.Helper()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "report")
	seed.Queue("report", "r1", "r2", "r3")
	s := screentest.Start(t, srv)
	s.Run("jobtypes report")
	s.Wait("> report")
	s.Press("enter")
	s.Wait("of 3")
	s.Press("/", "id:"+id, "enter")
	s.Wait("1–1 of 1 matching id:" + id)
	s.Press("A")
	s.Wait("all 1 matching marked")
	return s, seed
}

// In a job type's queue, / filters by a query, A marks what it matches
// and P parks the marked jobs in the dead set; the marks go with them,
// so D then asks for new ones instead of planning. esc drops the query.
func TestDriveQueueParkMarked(t *testing.T) {
	t.Parallel()
	s, seed := markedInQueue(t, "r2")
	s.Press("P")
	s.Wait("y: run it")
	if got := s.DialogTitle(); got != "Park 1 job from queue report?" {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the park", func(string) bool { return seed.Int("ZCARD", seed.K.Dead()) == 1 })
	if n := seed.Int("LLEN", seed.K.Queue("report")); n != 2 {
		t.Errorf("queue holds %d jobs, want 2", n)
	}
	s.WaitFor("the outcome", func(string) bool { return s.Dialog() == "" && strings.Contains(s.StatusLine(), "park") })
	s.WaitGone("marked")
	s.Press("D")
	s.WaitFor("why", func(string) bool { return strings.Contains(s.StatusLine(), "D deletes the marked jobs") })
	s.Press("esc")
	s.Wait("of 2")
}

// D on the marked jobs of a queue deletes them from it: the others stay
// queued, nothing goes to the dead set, and the view reads the queue
// again.
func TestDriveQueueDeleteMarked(t *testing.T) {
	t.Parallel()
	s, seed := markedInQueue(t, "r1")
	s.Press("D")
	s.Wait("y: run it")
	if got := s.DialogTitle(); !strings.Contains(got, "Delete 1 job from queue report") {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the delete", func(string) bool { return seed.Int("LLEN", seed.K.Queue("report")) == 2 })
	s.WaitFor("the outcome", func(string) bool { return s.Dialog() == "" && strings.Contains(s.StatusLine(), "delet") })
	for _, id := range []string{"r2", "r3"} {
		if n := seed.Int("EVAL", "local n = 0 for _, j in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do if cjson.decode(j).id == ARGV[1] then n = n + 1 end end return n", 1, seed.K.Queue("report"), id); n != 1 {
			t.Errorf("%s is in the queue %d times after the delete, want once", id, n)
		}
	}
	if n := seed.Int("ZCARD", seed.K.Dead()); n != 0 {
		t.Errorf("a delete put %d jobs in the dead set", n)
	}
	// The view has dropped its marks and read the page again once the
	// query matches nothing: esc then drops the query.
	s.Wait("no job matches id:r1")
	s.Press("esc")
	s.Wait("of 2")
}
