// The simulated enqueuers: gocraft/work's Enqueuer.Enqueue at each job
// type's arrival rate, and the bursts of the scenario.

package demo

import (
	"encoding/json"
	"fmt"
	"time"
)

// enqueueLoop enqueues one job of a type and schedules the next arrival.
func (s *Sim) enqueueLoop(sp *jobSpec) error {
	s.after(s.arrival(sp.perMinute), func() error { return s.enqueueLoop(sp) })
	return s.enqueue(sp)
}

// burst enqueues n jobs of one type at once.
func (s *Sim) burst(name string, n int) error {
	for i := 0; i < n; i++ {
		if err := s.enqueue(s.specs[name]); err != nil {
			return err
		}
	}
	return nil
}

// enqueue is Enqueuer.Enqueue: LPUSH the job JSON, and SADD known_jobs when
// the enqueuer has not done so for 5 minutes.
func (s *Sim) enqueue(sp *jobSpec) error {
	j := job{Name: sp.name, ID: s.ident(), EnqueuedAt: s.now.Unix(), Args: sp.args(s.rng)}
	raw, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode %s job: %w", sp.name, err)
	}
	if _, err := s.conn.Do("LPUSH", s.keys.Queue(sp.name), raw); err != nil {
		return fmt.Errorf("enqueue %s: %w", sp.name, err)
	}
	s.stats.Enqueued++
	if t, ok := s.enqueuerKnown[sp.name]; !ok || !s.now.Before(t) {
		if _, err := s.conn.Do("SADD", s.keys.KnownJobs(), sp.name); err != nil {
			return fmt.Errorf("enqueue %s: sadd known_jobs: %w", sp.name, err)
		}
		s.enqueuerKnown[sp.name] = s.now.Add(300 * time.Second)
	}
	return nil
}
