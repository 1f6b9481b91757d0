package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

const gonePool = "0ff0ff0ff0ff0ff0ff0ff0f1"

// o scans for in-progress lists no pool in worker_pools owns (an orphan
// left after the scan at start shows only after o); R in the Orphans view
// puts its jobs back in their queue.
func TestDriveOrphanScanAndRequeue(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail")
	// Polls an hour apart: the queue's new length shows by the refresh
	// that follows the requeue.
	s := screentest.Start(t, srv, "--interval", "1h", "--sweep-interval", "1h")
	s.Run("orphans")
	s.Wait("[Orphans]", "no orphaned in-progress lists")
	seed.Do("RPUSH", seed.K.InProgress("mail", gonePool), screentest.Job("mail", "o1", seed.Now-100), screentest.Job("mail", "o2", seed.Now-100))
	s.Press("o")
	s.Wait(gonePool[:12])
	s.Press("R")
	s.Wait("y: run it")
	if got := s.DialogTitle(); !strings.Contains(got, "Requeue 2 jobs") {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the requeue's outcome", func(string) bool { return strings.Contains(s.StatusLine(), "requeued 2 jobs") })
	if n := seed.Int("LLEN", seed.K.Queue("mail")); n != 2 {
		t.Errorf("queue holds %d jobs, want 2", n)
	}
	if seed.Exists(seed.K.InProgress("mail", gonePool)) {
		t.Error("the orphaned list is still there")
	}
	s.Wait("no orphaned in-progress lists")
	s.Run("jobtypes mail")
	s.WaitFor("mail's queue of 2", func(screen string) bool {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(rowOf(screen, "mail")), ">"))
		return len(f) > 1 && f[1] == "2"
	})
	// :requeue is R by name: nothing left to requeue now.
	s.Run("requeue")
	s.WaitFor("why", func(string) bool { return strings.Contains(s.StatusLine(), "requeues the selected orphan") })
}
