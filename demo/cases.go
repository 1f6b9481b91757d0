// The cases explain is rehearsed on: a paused job type, one that only a
// dead pool served, and one saturated by two long-running jobs.

package demo

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"time"
)

// The job types of the cases.
const (
	// PausedJob is paused from the history's start: its queue grows while
	// the live pool that serves it takes none.
	PausedJob = "rebuild_search"
	// UnservedJob is registered only by the dead pool: since it died no
	// live pool takes its jobs.
	UnservedJob = "import_ledger"
	// SaturatedJob has max_concurrency 2, and both slots run long jobs
	// (started LongJobAges before the history's start) while more wait.
	SaturatedJob = "transcode_video"
)

// LongJobAges are how long before the history's start the saturated type's
// two running jobs started: past the 10 min cut-off of a long-running job.
var LongJobAges = [2]time.Duration{38 * time.Minute, 25 * time.Minute}

// pauseAndBacklog pauses PausedJob and gives it a backlog; the saturated
// type gets three waiting jobs behind its running ones.
func (s *Sim) pauseAndBacklog() error {
	if _, err := s.conn.Do("SET", s.keys.Paused(PausedJob), "1"); err != nil {
		return fmt.Errorf("pause %s: %w", PausedJob, err)
	}
	if err := s.burst(PausedJob, 12); err != nil {
		return err
	}
	return s.burst(SaturatedJob, 3)
}

// startLongJob makes worker w run a job of SaturatedJob that started ago
// before now and ends after remaining, its last check-in 20 s ago (see
// startStuckJob).
func (s *Sim) startLongJob(w *worker, ago, remaining time.Duration, checkin string) error {
	return s.startStuckJob(w, SaturatedJob, ago, remaining, checkin, 20*time.Second, s.rng)
}

// startStuckJob makes worker w run a job of the type name that started ago
// before now, ends after remaining and last checked in checkinAgo before
// now: the state gocraft/work's fetch script and observer leave (the job
// in the pool's in-progress list, counted in lock and lock_info; the
// worker's observation with a check-in). The worker's pending fetch is
// cancelled; it fetches again once the job ends. r makes the job's ID and
// arguments.
func (s *Sim) startStuckJob(w *worker, name string, ago, remaining time.Duration, checkin string, checkinAgo time.Duration, r *rand.Rand) error {
	sp := s.specs[name]
	p := w.pool
	started := s.now.Add(-ago)
	b := make([]byte, 12)
	for i := range b {
		b[i] = byte(r.Intn(256))
	}
	j := job{Name: sp.name, ID: hex.EncodeToString(b), EnqueuedAt: started.Add(-40 * time.Second).Unix(), Args: sp.args(r)}
	raw, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode %s job: %w", sp.name, err)
	}
	inProg := s.keys.InProgress(sp.name, p.id)
	for _, c := range [][]any{
		{"MULTI"},
		{"LPUSH", inProg, raw},
		{"INCR", s.keys.Lock(sp.name)},
		{"HINCRBY", s.keys.LockInfo(sp.name), p.id, 1},
	} {
		if err := s.conn.Send(c[0].(string), c[1:]...); err != nil {
			return err
		}
	}
	if _, err := s.conn.Do("EXEC"); err != nil {
		return fmt.Errorf("pool %s: take a long %s job: %w", p.id, sp.name, err)
	}
	w.gen++
	w.busy = true
	s.after(remaining, func() error { return s.finish(w, string(raw), inProg, &j) })
	argsJSON, err := json.Marshal(j.Args)
	if err != nil {
		return fmt.Errorf("encode args: %w", err)
	}
	key := s.keys.Prefix() + "worker:" + w.id
	if _, err := s.conn.Do("HMSET", key, "job_name", j.Name, "job_id", j.ID, "started_at", started.Unix(), "args", argsJSON,
		"checkin", checkin, "checkin_at", s.now.Add(-checkinAgo).Unix()); err != nil {
		return fmt.Errorf("worker %s: observe: %w", w.id, err)
	}
	if _, err := s.conn.Do("EXPIRE", key, observationTTL); err != nil {
		return fmt.Errorf("worker %s: observe: %w", w.id, err)
	}
	return nil
}
