package tui_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

const (
	deadPool = "deadbeef0000000000000001"
	livePool = "feedface0000000000000002"
)

// deadPoolRunning seeds a dead pool of mail whose worker was running m1.
func deadPoolRunning(t *testing.T) (*redistest.Server, *screentest.Seed) {
	t.Helper()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.DeadPool(deadPool, "mail")
	seed.Running(deadPool, "mail", "m1")
	return srv, seed
}

// x on a dead pool reaps it: the dialog shows the plan, y (once the
// dialog has been read) runs it; its in-progress job goes back to its
// queue, its heartbeat and its lock go, and the status line says so.
func TestDriveReap(t *testing.T) {
	t.Parallel()
	srv, seed := deadPoolRunning(t)
	seed.LivePool(livePool, "mail")
	// Polls an hour apart: the pool leaves the screen by the refresh that
	// follows the reap.
	s := screentest.Start(t, srv, "--interval", "1h", "--sweep-interval", "1h")
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
	t.Parallel()
	srv, seed := deadPoolRunning(t)
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

// X reaps every dead pool and leaves the live one alone; so does
// :reap-all.
func TestDriveReapAll(t *testing.T) {
	t.Parallel()
	for _, keys := range [][]string{{"X"}, {":reap-all", "enter"}} {
		t.Run(keys[0], func(t *testing.T) {
			const other = "deadbeef0000000000000003"
			srv := redistest.Start(t)
			seed := screentest.NewSeed(t, srv, "work")
			seed.DeadPool(deadPool, "mail")
			seed.Running(deadPool, "mail", "m1")
			seed.DeadPool(other, "mail")
			seed.Running(other, "mail", "m2", "m3")
			seed.LivePool(livePool, "mail")
			s := screentest.Start(t, srv)
			s.Wait("dead pools 2")
			s.Press(keys...)
			s.Wait("Reap plan")
			if got := s.DialogTitle(); got != "Reap 2 dead pools?" {
				t.Errorf("dialog title %q", got)
			}
			s.Confirm()
			s.WaitFor("the reap's outcome", func(string) bool { return strings.Contains(s.StatusLine(), "reaped 2 pools") })
			if n := seed.Int("LLEN", seed.K.Queue("mail")); n != 3 {
				t.Errorf("queue holds %d jobs, want 3", n)
			}
			if n := seed.Int("SCARD", seed.K.WorkerPools()); n != 1 || !seed.Exists(seed.K.Heartbeat(livePool)) {
				t.Errorf("worker_pools holds %d pools, want the live one alone", n)
			}
		})
	}
}

// :reap ID reaps that pool: tab completes a dead pool's ID.
func TestDriveReapCommand(t *testing.T) {
	t.Parallel()
	srv, seed := deadPoolRunning(t)
	seed.LivePool(livePool, "mail")
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	s.Press(":reap ", "tab")
	s.Wait(":reap " + deadPool)
	s.Press("enter")
	s.Wait("Reap plan")
	s.Confirm()
	s.WaitFor("the reap's outcome", func(string) bool { return strings.Contains(s.StatusLine(), "reaped 1 pool") })
	if seed.Exists(seed.K.Heartbeat(deadPool)) || !seed.Exists(seed.K.Heartbeat(livePool)) {
		t.Error(":reap did not reap the dead pool alone")
	}
}

// x on a live pool does nothing and says why.
func TestDriveReapLivePoolRefused(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail")
	s := screentest.Start(t, srv)
	s.Wait("ok     feedface")
	s.Press("x")
	s.WaitFor("why x does nothing", func(string) bool {
		return strings.Contains(s.StatusLine(), "x reaps a dead pool; feedface")
	})
	if s.Dialog() != "" || !seed.Exists(seed.K.Heartbeat(livePool)) {
		t.Fatal("x on a live pool opened a dialog or reaped it")
	}
}

// --read-only: x is refused and says so, Redis untouched.
func TestDriveReadOnlyRefusesWrites(t *testing.T) {
	t.Parallel()
	srv, _ := deadPoolRunning(t)
	before := redistest.Dump(t, srv.Dial(), "*")
	s := screentest.Start(t, srv, "--read-only")
	s.Wait("DEAD   deadbeef")
	s.Press("x")
	s.WaitFor("the refusal", func(string) bool { return strings.Contains(s.StatusLine(), "read-only") })
	s.Press("X", "tab") // tab shows that X has been handled
	s.Wait("[Job types]")
	if s.Dialog() != "" {
		t.Fatalf("a read-only screen opened a dialog:\n%s", s.Text())
	}
	after := redistest.Dump(t, srv.Dial(), "*")
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("Redis changed under --read-only:\nbefore %v\nafter  %v", before, after)
	}
}
