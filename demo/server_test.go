package demo

import (
	"context"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestStart runs the live demo in real time: it must be ready (live and dead
// pools on the screen) at once, keep heartbeating with Redis's own clock,
// and stop.
func TestStart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo in real time for seconds: left out of go test -short, run by make test")
	}
	ctx := context.Background()
	t0 := time.Now()
	srv, err := Start(ctx, Options{Namespace: "work", Seed: 1})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	ready := time.Since(t0)
	defer srv.Stop()
	c, err := redis.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatalf("dial %s: %v", srv.Addr(), err)
	}
	defer c.Close()
	count := func() (alive, dead int) {
		snap, err := redisq.ReadSnapshot(ctx, c, "work", model.DefaultDeadAfter)
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		// A live pool may look late (one beat missed) when this machine is
		// starved of CPU for seconds; it must never look dead.
		for _, p := range snap.Pools {
			switch p.Status {
			case model.StatusAlive, model.StatusLate:
				alive++
			case model.StatusDead:
				dead++
			}
		}
		return alive, dead
	}
	if alive, dead := count(); alive != 4 || dead != 2 {
		t.Fatalf("at start: %d alive, %d dead pools, want 4 and 2", alive, dead)
	}
	t.Logf("ready in %v (a share %.2f of the 3 s the demo may take to start)", ready, ready.Seconds()/3)
	// One heartbeat period and a bit later, the live pools are still alive
	// by Redis's TIME: the simulation runs on the clock Redis answers with.
	fetched := srv.Stats().Fetched
	time.Sleep(beatPeriod + 2*time.Second)
	if alive, dead := count(); alive != 4 || dead != 2 {
		t.Fatalf("after %v: %d alive, %d dead pools, want 4 and 2", beatPeriod+2*time.Second, alive, dead)
	}
	srv.Stop()
	if got := srv.Stats().Fetched; got <= fetched {
		t.Errorf("no job fetched while running: %d -> %d", fetched, got)
	}
	if err := srv.Err(); err != nil {
		t.Errorf("simulation error: %v", err)
	}
	srv.Stop() // twice is fine
	if c2, err := redis.Dial("tcp", srv.Addr(), redis.DialConnectTimeout(time.Second)); err == nil {
		c2.Close()
		t.Errorf("embedded redis still accepts connections after Stop")
	}
}

// TestStartStopsWithContext: cancelling the context ends the simulation.
func TestStartStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := Start(ctx, Options{Seed: 2})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer srv.Stop()
	cancel()
	select {
	case <-srv.done:
	case <-time.After(5 * time.Second):
		t.Fatal("simulation still running 5 s after its context was cancelled")
	}
}

func TestShift(t *testing.T) {
	b, _ := miniBackend(t)
	s := newSim(t, b, "work", 1)
	before := s.Now()
	s.Shift(time.Hour)
	if got := s.Now().Sub(before); got != time.Hour {
		t.Fatalf("shift moved now by %v", got)
	}
	// After the gap the live pools beat again within a period, and the
	// scenario is intact.
	advance(t, s, beatPeriod+time.Second, 250*time.Millisecond, nil)
	checkScenario(t, readState(t, b.conn, "work"), s.Scenario(), s.Now(), "work")
}
