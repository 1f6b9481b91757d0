package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/screentest"
)

// markMail opens the dead set on the 40 mail jobs, all marked.
func markMail(s *screentest.Screen) {
	s.Run("jobs dead")
	s.Wait("1-20 of 42")
	s.Run("where job:mail")
	s.Wait("where job:mail")
	s.Press("A")
	s.Wait("all 40 matching marked")
}

// + and - in the bulk requeue's dialog step its rate up and down the
// ladder (no limit at the bottom), and the requeue runs at the rate shown,
// as its status line says: one job a call at 10 a second is still running
// when esc stops it.
func TestDriveRequeueRateSteps(t *testing.T) {
	t.Parallel()
	srv, seed := deadJobs(t)
	s := screentest.Start(t, srv, "--batch", "1")
	markMail(s)
	s.Press("R")
	s.Wait("rate: no limit")
	for _, step := range []struct{ key, rate string }{
		{"+", "at most 10 jobs/s"}, {"+", "at most 20 jobs/s"}, {"-", "at most 10 jobs/s"},
		{"-", "no limit"}, {"-", "no limit"}, {"+", "at most 10 jobs/s"},
	} {
		s.Press(step.key)
		s.WaitFor("rate: "+step.rate, func(string) bool { return strings.Contains(s.Dialog(), "rate: "+step.rate+"   ") })
	}
	s.Confirm()
	s.WaitFor("the requeue running at 10 a second", func(string) bool { return strings.Contains(s.StatusLine(), "40 jobs at 10/s") })
	s.WaitFor("the first jobs moved", func(string) bool { return seed.Int("LLEN", seed.K.Queue("mail")) > 0 })
	s.Press("esc")
	s.WaitFor("the stop's outcome", func(string) bool { return strings.Contains(s.StatusLine(), "stopped: ") })
	queued, dead := seed.Int("LLEN", seed.K.Queue("mail")), seed.Int("ZCARD", seed.K.Dead())
	if queued == 0 || queued >= 40 || queued+dead != 42 {
		t.Errorf("after the stop: %d queued, %d dead; want some moved at 10 a second, none lost or doubled (42 in all)", queued, dead)
	}
}

// :requeue --rate N opens the Jobs view's requeue with that rate; y runs
// it. A rate that is not a number is refused, nothing opened or written.
func TestDriveRequeueRateCommand(t *testing.T) {
	t.Parallel()
	srv, seed := deadJobs(t)
	s := screentest.Start(t, srv)
	markMail(s)
	s.Run("requeue --rate fast")
	s.WaitFor("the refusal", func(string) bool {
		return strings.Contains(s.StatusLine(), `:requeue --rate: want a whole number of jobs a second`)
	})
	if s.Dialog() != "" || seed.Int("ZCARD", seed.K.Dead()) != 42 {
		t.Fatal("a bad rate opened the dialog or wrote")
	}
	s.Run("requeue --rate 500")
	s.WaitFor("the dialog at 500 a second", func(string) bool { return strings.Contains(s.Dialog(), "rate: at most 500 jobs/s") })
	if got := s.DialogTitle(); got != "Requeue 40 jobs from dead (all matching job:mail)?" {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the requeue", func(string) bool { return seed.Int("LLEN", seed.K.Queue("mail")) == 40 })
	if n := seed.Int("ZCARD", seed.K.Dead()); n != 2 {
		t.Errorf("dead set holds %d after the requeue, want the 2 refund jobs", n)
	}
}
