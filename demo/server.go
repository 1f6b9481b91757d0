// The live demo: an embedded miniredis on loopback and the simulation
// advanced to the wall clock every Tick, for `workq-tui --demo`.

package demo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/gomodule/redigo/redis"
)

// Tick is how often the live demo advances the simulation to the wall clock.
const Tick = 100 * time.Millisecond

// callTimeout bounds every call of the simulation to the embedded Redis.
const callTimeout = 5 * time.Second

// maxLag is how far the simulation may fall behind the wall clock (a
// suspended laptop, a stopped process) before it skips the gap instead of
// replaying it.
const maxLag = 10 * time.Second

// Server is a running demo: an embedded miniredis on loopback with the
// simulated deployment moving in it in real time.
type Server struct {
	mr     *miniredis.Miniredis
	addr   string
	conn   redis.Conn
	sim    *Sim
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once

	mu  sync.Mutex // guards sim while it runs, and err
	err error
}

// Start starts miniredis on 127.0.0.1 (a free port), writes the scenario's
// history up to now, and runs the simulation in real time until ctx is done
// or Stop is called. Redis's TIME is the wall clock, which is the clock the
// simulated pools write their heartbeats with. opts.Now and opts.SetTime are
// ignored.
func Start(ctx context.Context, opts Options) (*Server, error) {
	mr := miniredis.NewMiniRedis()
	if err := mr.StartAddr("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("start embedded redis: %w", err)
	}
	conn, err := redis.Dial("tcp", mr.Addr(), redis.DialConnectTimeout(callTimeout),
		redis.DialReadTimeout(callTimeout), redis.DialWriteTimeout(callTimeout))
	if err != nil {
		mr.Close()
		return nil, fmt.Errorf("connect to embedded redis: %w", err)
	}
	// A whole second: the history is then the same for the same seed on
	// every run (the pools' clocks are whole seconds, as gocraft/work's).
	opts.Now, opts.SetTime = time.Now().Truncate(time.Second), nil
	sim := New(conn, opts)
	if err := sim.Init(ctx); err != nil {
		conn.Close()
		mr.Close()
		return nil, fmt.Errorf("seed demo deployment: %w", err)
	}
	// Writing the history takes a moment (seconds on a loaded machine): catch
	// up with the wall clock before returning, so that no live pool looks
	// late on the first screen.
	if err := sim.AdvanceTo(ctx, time.Now()); err != nil {
		conn.Close()
		mr.Close()
		return nil, fmt.Errorf("seed demo deployment: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{mr: mr, addr: mr.Addr(), conn: conn, sim: sim, cancel: cancel, done: make(chan struct{})}
	go s.run(ctx)
	return s, nil
}

// Addr is the embedded Redis's host:port.
func (s *Server) Addr() string { return s.addr }

// Err is the last error the simulation met (nil if none). The simulation
// goes on after an error: the operator may have written something odd.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stats are the simulation's counts so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sim.Stats()
}

// Stop ends the simulation and the embedded Redis. It may be called more
// than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.cancel()
		<-s.done
		s.conn.Close()
		s.mr.Close()
	})
}

func (s *Server) run(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(Tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		now := time.Now()
		if lag := now.Sub(s.sim.Now()); lag > maxLag {
			s.sim.Shift(lag)
		}
		if err := s.sim.AdvanceTo(ctx, now); err != nil && ctx.Err() == nil {
			s.err = err
		}
		s.mu.Unlock()
	}
}
