package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// deadAndLive seeds a dead pool holding two mail jobs and a live pool
// serving mail and report.
func deadAndLive(t *testing.T) (*redistest.Server, *screentest.Seed) {
	t.Helper()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.DeadPool(deadPool, "mail")
	seed.Running(deadPool, "mail", "m1", "m2")
	seed.LivePool(livePool, "mail", "report")
	return srv, seed
}

// enter opens a dead pool's detail with its in-progress jobs; R there
// requeues them and leaves the pool (a reap's other half); esc comes back.
func TestDriveDetailRequeue(t *testing.T) {
	t.Parallel()
	srv, seed := deadAndLive(t)
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	s.Press("enter")
	s.Wait("[Pools › detail]", "in-progress jobs: showing 2 of 2", "id m1", "id m2")
	s.Press("R")
	s.Wait("Requeue plan")
	if got := s.DialogTitle(); got != "Requeue 2 jobs from 1 in-progress list?" {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the requeue's outcome", func(string) bool { return strings.Contains(s.StatusLine(), "requeued 2 jobs") })
	if n := seed.Int("LLEN", seed.K.Queue("mail")); n != 2 {
		t.Errorf("queue holds %d jobs, want 2", n)
	}
	if seed.Exists(seed.K.InProgress("mail", deadPool)) {
		t.Error("the in-progress list is still there")
	}
	if !seed.Exists(seed.K.Heartbeat(deadPool)) {
		t.Error("a requeue removed the pool's heartbeat: that is the reap's")
	}
	s.Press("esc")
	s.Wait("[Pools]")
}

// e on a pool explains it, with the fix as a command to paste and the key
// that does it here.
func TestDriveExplainPool(t *testing.T) {
	t.Parallel()
	srv, _ := deadAndLive(t)
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	s.Press("e")
	screen := s.Wait("explain pool deadbeef", "pool deadbeef0000000000000001 is dead", "here: x reaps it")
	if !strings.Contains(screen, "fix: workq-tui --redis "+srv.Addr()+" reap "+deadPool) {
		t.Errorf("the fix is not the command to paste:\n%s", screen)
	}
	s.Press("esc")
	s.Wait("[Pools]")
}

// c copies the selected pool's ID, C the command that explains it, and
// :copy command the same command: each through the terminal (OSC 52).
func TestDriveCopy(t *testing.T) {
	t.Parallel()
	srv, _ := deadAndLive(t)
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	s.Press("c")
	s.WaitFor("the copy", func(string) bool { return strings.Contains(s.StatusLine(), "copied pool id "+deadPool) })
	s.Press("C")
	s.WaitFor("the copied command", func(string) bool { return len(s.Clipboard()) == 2 })
	s.Run("copy command")
	s.WaitFor("the copied command", func(string) bool { return len(s.Clipboard()) == 3 })
	cmd := "workq-tui --redis " + srv.Addr() + " explain --pool " + deadPool
	if got := s.Clipboard(); got[0] != deadPool || got[1] != cmd || got[2] != cmd {
		t.Errorf("clipboard got %q, want the ID then twice %q", got, cmd)
	}
}

// / filters the pools by what is typed; esc clears the filter.
func TestDriveFilterPools(t *testing.T) {
	t.Parallel()
	srv, _ := deadAndLive(t)
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef", "ok     feedface")
	s.Press("/", "feed", "enter")
	s.WaitGone("DEAD   deadbeef")
	s.Wait("ok     feedface", "esc clears")
	s.Press("esc")
	s.Wait("DEAD   deadbeef", "ok     feedface")
}

// ? opens the help with every key; esc closes it. :help too.
func TestDriveHelp(t *testing.T) {
	t.Parallel()
	srv, _ := deadAndLive(t)
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	for _, keys := range [][]string{{"?"}, {":help", "enter"}} {
		s.Press(keys...)
		s.Wait("[Pools › help]", "X reap all", "o scan orphans", "esc       close help")
		s.Press("esc")
		s.Wait("[Pools]")
	}
}

// r polls at once: with polls an hour apart, a pool that appeared shows
// only after r. The views open by tab, shift+tab and their commands.
func TestDriveRefreshAndViews(t *testing.T) {
	t.Parallel()
	srv, seed := deadAndLive(t)
	s := screentest.Start(t, srv, "--interval", "1h", "--sweep-interval", "1h")
	s.Wait("DEAD   deadbeef")
	seed.Pool("abcdef000000000000000009", 0, "mail")
	s.Press("r")
	s.Wait("host-abcd")
	for _, view := range []struct{ keys, tab string }{
		{":jobtypes", "[Job types]"}, {":orphans", "[Orphans]"}, {":workers", "[Workers]"},
		{":jobs", "[Jobs]"}, {":pools", "[Pools]"},
	} {
		s.Run(strings.TrimPrefix(view.keys, ":"))
		s.Wait(view.tab)
	}
	s.Press("shift+tab")
	s.Wait("[Jobs]")
	s.Press("tab")
	s.Wait("[Pools]")
}

// q ends the screen, and so do ctrl+c and :quit.
func TestDriveQuit(t *testing.T) {
	t.Parallel()
	for _, keys := range [][]string{{"q"}, {"ctrl+c"}, {":quit", "enter"}} {
		t.Run(keys[0], func(t *testing.T) {
			srv, _ := deadAndLive(t)
			s := screentest.Start(t, srv)
			s.Wait("DEAD   deadbeef")
			s.Press(keys...)
			s.WaitEnded()
		})
	}
}
