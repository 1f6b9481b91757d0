package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/screentest"
)

// R on a job's detail requeues that job; the detail closes, as the job
// has left the set, and the list under it reads its page again.
func TestDriveJobDetailRequeue(t *testing.T) {
	t.Parallel()
	srv, seed := deadJobs(t)
	s := screentest.Start(t, srv)
	s.Run("jobs dead")
	s.Wait("1-20 of 42", "m39")
	s.Press("enter")
	s.Wait("one job · esc back")
	s.Press("R")
	s.Wait("y: run it")
	if got := s.DialogTitle(); got != "Requeue 1 job from dead?" {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the requeue", func(string) bool { return seed.Int("LLEN", seed.K.Queue("mail")) == 1 })
	s.WaitFor("the list", func(screen string) bool {
		return !strings.Contains(screen, "one job · esc back") && strings.Contains(screen, "1-20 of 41")
	})
}
