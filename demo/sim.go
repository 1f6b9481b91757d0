// Package demo simulates a gocraft/work v0.5.1 deployment against a Redis
// server, for `workq-tui --demo`: live worker pools that heartbeat and move
// jobs queue -> in progress -> done, enqueuers that keep several job types
// moving, and the kinds of wreckage an operator meets in an incident (a dead
// pool with jobs in progress, a pool whose heartbeat vanished, an orphaned
// in-progress list, a job type whose lock drifted above its max_concurrency).
//
// The simulated pools send the same commands as gocraft/work (the same Lua
// scripts, pipelines and MULTI blocks, see scripts.go), so every state they
// leave is one a real deployment could be in, and gocraft/work's consistency rule
// (per job type, lock = the sum of lock_info = the total length of the
// in-progress lists) holds between any two of their operations.
//
// A Sim is a discrete-event simulation: every event has a time, and nothing
// happens but through AdvanceTo, which runs the events due up to a given
// time in order. Under one seed and the same sequence of AdvanceTo calls the
// same commands are sent, so the end state is the same.
package demo

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/upstreamref"
	"github.com/workq-tui/workq-tui/redisq"
)

// This file owns the simulation itself: its options, its clock and event
// loop (Init, AdvanceTo, Shift, the scheduling helpers) and its counters.
// The scenario (which pools, which wreckage) is in scenario.go; what the
// simulated gocraft/work processes do is in pools.go, workers.go and
// enqueue.go.

// History is how much simulated time Init plays before Options.Now: the
// scenario's pools start, work, and fail within it.
const History = 2 * time.Minute

// Options configure a simulation.
type Options struct {
	// Namespace is the gocraft/work namespace ("work" when empty).
	Namespace string
	// Seed makes every random choice (IDs, arrivals, run times, failures).
	Seed int64
	// Now is the moment the scenario's history ends: Init writes the state
	// the deployment has at Now, its history starting History earlier.
	Now time.Time
	// SetTime, when set, is called with the simulated time before each event
	// runs, and at the end of each AdvanceTo (tests point miniredis's TIME at
	// simulated time with it).
	SetTime func(time.Time)
}

// Sim is one simulated deployment. It is not safe for concurrent use: one
// goroutine advances it.
type Sim struct {
	conn     redis.Conn
	keys     redisq.Keys
	rng      *rand.Rand
	seed     int64
	setTime  func(time.Time)
	now      time.Time
	start    time.Time // Options.Now
	events   eventQueue
	seq      uint64
	specs    map[string]*jobSpec
	pools    []*pool
	scenario Scenario
	// enqueuerKnown is the enqueuer's cache of when it last added a job name
	// to known_jobs (gocraft/work's Enqueuer re-adds every 5 minutes).
	enqueuerKnown map[string]time.Time
	reapLocks     *redis.Script
	stats         Stats
}

// Stats count what the simulation did.
type Stats struct {
	Events   int64
	Enqueued int64
	Fetched  int64
	Finished int64
	Failed   int64
	// FinishedBy is the number of jobs each pool finished.
	FinishedBy map[string]int64
}

// Stats returns the counts so far.
func (s *Sim) Stats() Stats {
	st := s.stats
	st.FinishedBy = make(map[string]int64, len(s.stats.FinishedBy))
	for k, v := range s.stats.FinishedBy {
		st.FinishedBy[k] = v
	}
	return st
}

// New builds the simulation on conn. Nothing is sent until Init or
// AdvanceTo.
func New(conn redis.Conn, opts Options) *Sim {
	ns := opts.Namespace
	if ns == "" {
		ns = "work"
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	s := &Sim{
		conn:          conn,
		keys:          redisq.NewKeys(ns),
		rng:           rand.New(rand.NewSource(opts.Seed)),
		seed:          opts.Seed,
		setTime:       opts.SetTime,
		start:         now,
		now:           now.Add(-History),
		specs:         map[string]*jobSpec{},
		enqueuerKnown: map[string]time.Time{},
		reapLocks:     redis.NewScript(-1, upstreamref.ReapStaleLocks),
		stats:         Stats{FinishedBy: map[string]int64{}},
	}
	for _, sp := range append(jobSpecs(), incidentSpecs()...) {
		s.specs[sp.name] = sp
		s.scenario.JobNames = append(s.scenario.JobNames, sp.name)
	}
	sort.Strings(s.scenario.JobNames)
	s.build()
	s.at(s.now, func() error { return s.seedDeadHistory(opts.Seed) })
	return s
}

// Scenario names the simulated pools and job types.
func (s *Sim) Scenario() Scenario {
	sc := s.scenario
	sc.Live = append([]string(nil), sc.Live...)
	sc.JobNames = append([]string(nil), sc.JobNames...)
	return sc
}

// Now is the simulated time.
func (s *Sim) Now() time.Time { return s.now }

// Init plays the scenario's history up to Options.Now.
func (s *Sim) Init(ctx context.Context) error { return s.AdvanceTo(ctx, s.start) }

// AdvanceTo runs every event due at or before t, in time order, and leaves
// the simulated time at t (never moving it back).
func (s *Sim) AdvanceTo(ctx context.Context, t time.Time) error {
	for n := 0; len(s.events) > 0 && !s.events[0].at.After(t); n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		ev := heap.Pop(&s.events).(*event)
		s.stats.Events++
		if ev.at.After(s.now) {
			s.now = ev.at
		}
		if s.setTime != nil {
			s.setTime(s.now)
		}
		if err := ev.run(); err != nil {
			return fmt.Errorf("simulate at %s: %w", s.now.UTC().Format(time.RFC3339), err)
		}
	}
	if t.After(s.now) {
		s.now = t
	}
	if s.setTime != nil {
		s.setTime(s.now)
	}
	return nil
}

// Shift moves the simulated time and every pending event forward by d, as
// if the whole deployment had been paused for d: the live demo uses it to
// skip a gap (a suspended laptop) instead of replaying it.
func (s *Sim) Shift(d time.Duration) {
	if d <= 0 {
		return
	}
	s.now = s.now.Add(d)
	for _, ev := range s.events {
		ev.at = ev.at.Add(d) // the same shift for all keeps the heap order
	}
}

// at schedules fn at time t.
func (s *Sim) at(t time.Time, fn func() error) {
	s.seq++
	heap.Push(&s.events, &event{at: t, seq: s.seq, run: fn})
}

// after schedules fn d after the current simulated time.
func (s *Sim) after(d time.Duration, fn func() error) { s.at(s.now.Add(d), fn) }

// every runs fn at first and then every period.
func (s *Sim) every(first time.Time, period time.Duration, fn func() error) {
	var loop func() error
	loop = func() error {
		s.after(period, loop)
		return fn()
	}
	s.at(first, loop)
}

// arrival is an exponential inter-arrival time for a rate per minute.
func (s *Sim) arrival(perMinute float64) time.Duration {
	secs := s.rng.ExpFloat64() * 60 / perMinute
	return time.Duration(math.Round(secs*1000)) * time.Millisecond
}
