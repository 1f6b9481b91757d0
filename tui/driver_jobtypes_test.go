package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// jobTypes seeds a live pool serving mail and report; report has two jobs
// queued and a lock of 3 that no in-progress list holds (drift).
func jobTypes(t *testing.T) (*redistest.Server, *screentest.Seed) {
	t.Helper()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail", "report")
	seed.Queue("report", "r1", "r2")
	seed.Do("SET", seed.K.Lock("report"), 3)
	return srv, seed
}

// onReport opens the Job types view with the cursor on report.
func onReport(t *testing.T, s *screentest.Screen) {
	t.Helper()
	s.Run("jobtypes report")
	s.Wait("[Job types]", "> report")
}

// L on a job type marked DRIFT repairs its lock from the in-progress
// lists; :repair JOB does the same.
func TestDriveRepairLocks(t *testing.T) {
	t.Parallel()
	for _, keys := range [][]string{{"L"}, {":repair report", "enter"}} {
		t.Run(keys[0], func(t *testing.T) {
			srv, seed := jobTypes(t)
			// Polls and sweeps an hour apart: DRIFT leaves the screen by the
			// refresh that follows the repair.
			s := screentest.Start(t, srv, "--interval", "1h", "--sweep-interval", "1h")
			onReport(t, s)
			waitRow(t, s, "report", "DRIFT")
			s.Press(keys...)
			s.Wait("Lock repair plan", "lock  3 -> 0")
			if got := s.DialogTitle(); got != "Repair the locks of report?" {
				t.Errorf("dialog title %q", got)
			}
			s.Confirm()
			s.WaitFor("the repair's outcome", func(string) bool { return strings.Contains(s.StatusLine(), "report") && s.Dialog() == "" })
			if n := seed.Int("GET", seed.K.Lock("report")); n != 0 {
				t.Errorf("lock = %d after the repair, want 0", n)
			}
			s.WaitFor("report without DRIFT", func(screen string) bool { return !strings.Contains(rowOf(screen, "report"), "DRIFT") })
		})
	}
}

// L on a job type without drift does nothing and says why.
func TestDriveRepairLocksRefused(t *testing.T) {
	t.Parallel()
	srv, seed := jobTypes(t)
	s := screentest.Start(t, srv)
	s.Run("jobtypes mail")
	s.Wait("> mail")
	s.Press("L")
	s.WaitFor("why", func(string) bool { return strings.Contains(s.StatusLine(), "marked DRIFT") })
	if n := seed.Int("GET", seed.K.Lock("report")); n != 3 {
		t.Errorf("lock = %d, want it untouched", n)
	}
}

// p pauses the job type under the cursor, p again unpauses it; :pause
// JOB toggles the same way.
func TestDrivePauseUnpause(t *testing.T) {
	t.Parallel()
	for _, keys := range [][]string{{"p"}, {":pause report", "enter"}} {
		t.Run(keys[0], func(t *testing.T) {
			srv, seed := jobTypes(t)
			s := screentest.Start(t, srv)
			onReport(t, s)
			s.Press(keys...)
			s.Wait("Pause plan", "SET work:jobs:report:paused 1")
			if got := s.DialogTitle(); got != "Pause report?" {
				t.Errorf("dialog title %q", got)
			}
			s.Confirm()
			s.WaitFor("the pause", func(string) bool { return seed.Exists(seed.K.Paused("report")) })
			waitRow(t, s, "report", "PAUSED")
			s.Press(keys...)
			s.Wait("Unpause report?")
			s.Confirm()
			s.WaitFor("the unpause", func(string) bool { return !seed.Exists(seed.K.Paused("report")) })
			s.WaitFor("report no longer paused", func(screen string) bool { return !strings.Contains(rowOf(screen, "report"), "PAUSED") })
		})
	}
}

// t opens the command line at ":throttle report "; the limit typed there
// opens the plan, and y writes max_concurrency. :throttle report reset
// takes the cap away.
func TestDriveThrottle(t *testing.T) {
	t.Parallel()
	srv, seed := jobTypes(t)
	s := screentest.Start(t, srv)
	onReport(t, s)
	s.Press("t")
	s.Wait(":throttle report ")
	s.Press("2", "enter")
	s.Wait("y: run it")
	if got := s.DialogTitle(); !strings.Contains(got, "report") {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the cap", func(string) bool { return seed.Int("GET", seed.K.MaxConcurrency("report")) == 2 })
	s.Wait("/2 ")
	s.Run("throttle report reset")
	s.Wait("y: run it")
	s.Confirm()
	s.WaitFor("no cap", func(string) bool { return seed.Int("GET", seed.K.MaxConcurrency("report")) == 0 })
}

// A bad limit is one line on the status line, Redis untouched.
func TestDriveThrottleBadLimit(t *testing.T) {
	t.Parallel()
	srv, seed := jobTypes(t)
	s := screentest.Start(t, srv)
	onReport(t, s)
	s.Run("throttle report many")
	s.WaitFor("the refusal", func(string) bool { return strings.Contains(s.StatusLine(), "or reset for no cap") })
	if s.Dialog() != "" || seed.Exists(seed.K.MaxConcurrency("report")) {
		t.Fatal("a bad limit opened a dialog or wrote the cap")
	}
}

// e on a job type explains it; :explain JOB too.
func TestDriveExplainJobType(t *testing.T) {
	t.Parallel()
	for _, keys := range [][]string{{"e"}, {":explain report", "enter"}} {
		t.Run(keys[0], func(t *testing.T) {
			srv, _ := jobTypes(t)
			s := screentest.Start(t, srv)
			onReport(t, s)
			s.Press(keys...)
			s.Wait("[Job types › explain report]", "report is running normally", "queued 2", "lock 3")
		})
	}
}

// enter on a job type opens its queue with the jobs waiting, oldest
// first.
func TestDriveQueue(t *testing.T) {
	t.Parallel()
	srv, _ := jobTypes(t)
	s := screentest.Start(t, srv)
	onReport(t, s)
	s.Press("enter")
	s.Wait("id r1", "id r2")
	s.Press("esc")
	s.Wait("[Job types]")
}

// waitRow waits until the row of name shows text.
func waitRow(t *testing.T, s *screentest.Screen, name, text string) {
	t.Helper()
	s.WaitFor(name+"'s row showing "+text, func(screen string) bool { return strings.Contains(rowOf(screen, name), text) })
}

// rowOf is the screen's line that holds name as a word, "" when none.
func rowOf(screen, name string) string {
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), ">"))
		if len(f) > 0 && f[0] == name {
			return l
		}
	}
	return ""
}
