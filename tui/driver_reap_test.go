package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

const (
	deadPool = "deadbeef0000000000000001"
	livePool = "feedface0000000000000002"
)

// x on a dead pool reaps it: the dialog shows the plan, y (once the
// dialog has been read) runs it; its in-progress job goes back to its
// queue, its heartbeat and its lock go, and the status line says so.
func TestDriveReap(t *testing.T) {
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.DeadPool(deadPool, "mail")
	seed.Running(deadPool, "mail", "m1")
	seed.LivePool(livePool, "mail")
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	s.Press("x")
	s.Wait("Reap plan")
	if got := s.DialogTitle(); got != "Reap 1 dead pool?" {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the reap's outcome", func(string) bool { return strings.Contains(s.StatusLine(), "reaped 1 pool") })
	if n := seed.Int("LLEN", seed.K.Queue("mail")); n != 1 {
		t.Errorf("queue holds %d jobs after the reap, want 1", n)
	}
	if seed.Exists(seed.K.Heartbeat(deadPool)) || seed.Exists(seed.K.InProgress("mail", deadPool)) {
		t.Errorf("the dead pool's heartbeat or in-progress list is still there")
	}
	if n := seed.Int("GET", seed.K.Lock("mail")); n != 0 {
		t.Errorf("lock = %d after the reap, want 0", n)
	}
	s.WaitGone("DEAD")
}

// An early y does nothing: the dialog offers y only once it has been on
// screen a while, and a y before that is refused and said.
func TestDriveReapEarlyYIgnored(t *testing.T) {
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.DeadPool(deadPool, "mail")
	seed.Running(deadPool, "mail", "m1")
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	s.Press("x", "y")
	s.Wait("pressed before the dialog was on screen")
	if !seed.Exists(seed.K.Heartbeat(deadPool)) {
		t.Fatal("an early y reaped the pool")
	}
	s.Press("esc")
	s.WaitGone("Reap plan")
	if !seed.Exists(seed.K.Heartbeat(deadPool)) {
		t.Fatal("esc reaped the pool")
	}
}
