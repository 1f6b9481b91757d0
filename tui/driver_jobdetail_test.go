package tui_test

import (
	"strings"
	"testing"
)

// R on a job's detail requeues that job; the detail closes, as the job
// has left the set, and the list under it reads its page again.
func TestDriveJobDetailRequeue(t *testing.T) {
	t.Parallel()
	s, seed := deadJobsShown(t)
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
