// The simulated workers: gocraft/work's fetch (the same Lua script), the
// observation of a busy worker, the end of a job (done, retry or dead) and
// the idle backoff between fetches.

package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// job is gocraft/work's Job as it is serialized.
type job struct {
	Name       string         `json:"name,omitempty"`
	ID         string         `json:"id"`
	EnqueuedAt int64          `json:"t"`
	Args       map[string]any `json:"args"`
	Unique     bool           `json:"unique,omitempty"`
	Fails      int64          `json:"fails,omitempty"`
	LastErr    string         `json:"err,omitempty"`
	FailedAt   int64          `json:"failed_at,omitempty"`
}

// maxFails is gocraft/work's default MaxFails.
const maxFails = 4

// observationTTL is the expiry gocraft/work sets on worker observations.
const observationTTL = 24 * 60 * 60

// sleepBackoffs is gocraft/work's idle worker backoff, indexed by the number
// of fetches in a row that found nothing.
var sleepBackoffs = [...]time.Duration{0, 10 * time.Millisecond, 100 * time.Millisecond, time.Second, 5 * time.Second}

// sample is one fetch key of a pool: a job type and its priority.
type sample struct {
	priority uint
	job      string
}

// worker is one worker goroutine of a simulated pool.
type worker struct {
	id     string
	pool   *pool
	misses int
	busy   bool // holds a job
	gen    int  // fetch events of an older generation are stale (see wake)
}

// sampleOrder is gocraft/work's prioritySampler.sample: a random order in
// which higher priorities tend to come first.
func (s *Sim) sampleOrder(p *pool) []sample {
	out := p.fetchKeys
	var sum uint
	for _, x := range out {
		sum += x.priority
	}
	last := 0
	for remaining := len(out); remaining > 1; remaining-- {
		rn := uint(s.rng.Uint32()) % sum
		prev := uint(0)
		for i := len(out) - 1; i >= last; i-- {
			x := out[i]
			if rn < x.priority+prev {
				out[i], out[last] = out[last], out[i]
				sum -= x.priority
				break
			}
			prev += x.priority
		}
		last++
	}
	return out
}

// fetch is one worker.fetchJob: the fetch script over the pool's job types
// in sampled order.
func (s *Sim) fetch(w *worker, gen int) error {
	p := w.pool
	if p.crashed || gen != w.gen {
		return nil
	}
	// The script finds nothing when every queue of the pool is empty (an
	// empty list does not exist); ask that first without Lua, which keeps an
	// idle pool's polling cheap on miniredis. It changes nothing in Redis.
	queues := redis.Args{}
	for _, j := range p.jobNames {
		queues = queues.Add(s.keys.Queue(j))
	}
	n, err := redis.Int(s.conn.Do("EXISTS", queues...))
	if err != nil {
		return s.fetchFailed(w, err)
	}
	if n == 0 {
		return s.miss(w)
	}
	args := redis.Args{}
	for _, x := range s.sampleOrder(p) {
		args = args.Add(s.keys.Queue(x.job), s.keys.InProgress(x.job, p.id), s.keys.Paused(x.job),
			s.keys.Lock(x.job), s.keys.LockInfo(x.job), s.keys.MaxConcurrency(x.job))
	}
	args = args.Add(p.id)
	values, err := redis.Values(p.fetch.Do(s.conn, args...))
	if errors.Is(err, redis.ErrNil) {
		return s.miss(w)
	}
	if err != nil {
		return s.fetchFailed(w, err)
	}
	var raw, inProg string
	if _, err := redis.Scan(values, &raw, new(string), &inProg); err != nil {
		return s.fetchFailed(w, err)
	}
	w.misses = 0
	w.busy = true
	s.stats.Fetched++
	var j job
	if err := json.Unmarshal([]byte(raw), &j); err != nil || s.specs[j.Name] == nil {
		// gocraft/work drops a job it cannot decode and leaves it in the
		// in-progress list (and in lock); so do we.
		return s.fetchFailed(w, fmt.Errorf("undecodable job %.60q: %v", raw, err))
	}
	sp := s.specs[j.Name]
	run := sp.minRun + time.Duration(s.rng.Int63n(int64(sp.maxRun-sp.minRun)+1))
	if !p.hung { // a hung pool's jobs never end; neither do its workers
		s.after(run, func() error { return s.finish(w, raw, inProg, &j) })
	}
	return s.observeStarted(w, &j)
}

// fetchAfter schedules the worker's next fetch.
func (s *Sim) fetchAfter(w *worker, d time.Duration) {
	gen := w.gen
	s.after(d, func() error { return s.fetch(w, gen) })
}

// wake makes the idle workers of a pool fetch now instead of at the end of
// their backoff, as if their timers had just fired. The scenario uses it so
// that a pool that hangs during a burst is sure to hold jobs, whatever the
// seed: its workers poll before anyone else's.
func (s *Sim) wake(p *pool) {
	for _, w := range p.workers {
		if !w.busy {
			w.gen++
			s.fetchAfter(w, 0)
		}
	}
}

// fetchFailed is gocraft/work's answer to a fetch error: log it, try again
// in 10 ms.
func (s *Sim) fetchFailed(w *worker, err error) error {
	s.fetchAfter(w, 10*time.Millisecond)
	return fmt.Errorf("pool %s: fetch: %w", w.pool.id, err)
}

// miss schedules the next fetch after gocraft/work's idle backoff.
func (s *Sim) miss(w *worker) error {
	w.misses++
	s.fetchAfter(w, sleepBackoffs[min(w.misses, len(sleepBackoffs)-1)])
	return nil
}

// observeStarted writes the worker observation hash (observer.writeStatus).
func (s *Sim) observeStarted(w *worker, j *job) error {
	key := s.keys.Prefix() + "worker:" + w.id
	argsJSON := []byte("")
	if len(j.Args) > 0 {
		var err error
		if argsJSON, err = json.Marshal(j.Args); err != nil {
			return fmt.Errorf("encode args: %w", err)
		}
	}
	if err := s.conn.Send("HMSET", key, "job_name", j.Name, "job_id", j.ID, "started_at", s.now.Unix(), "args", argsJSON); err != nil {
		return err
	}
	if err := s.conn.Send("EXPIRE", key, observationTTL); err != nil {
		return err
	}
	if _, err := s.conn.Do(""); err != nil {
		return fmt.Errorf("worker %s: observe: %w", w.id, err)
	}
	return nil
}

// finish is worker.removeJobFromInProgress, with the job's fate: done,
// retried later, or dead after maxFails failures.
func (s *Sim) finish(w *worker, raw, inProg string, j *job) error {
	p := w.pool
	if p.crashed {
		return nil
	}
	sp := s.specs[j.Name]
	var fate []any
	if sp.failRate > 0 && s.rng.Float64() < sp.failRate {
		j.Fails++
		j.LastErr = sp.errs[s.rng.Intn(len(sp.errs))]
		j.FailedAt = s.now.Unix()
		b, err := json.Marshal(j)
		if err != nil {
			return fmt.Errorf("encode failed job: %w", err)
		}
		most := int64(maxFails)
		if sp.maxFails > 0 {
			most = sp.maxFails
		}
		if j.Fails < most {
			backoff := j.Fails*j.Fails*j.Fails*j.Fails + 15 + s.rng.Int63n(30)*(j.Fails+1)
			fate = []any{"ZADD", s.keys.Retry(), s.now.Unix() + backoff, b}
		} else {
			fate = []any{"ZADD", s.keys.Dead(), s.now.Unix(), b}
		}
	}
	cmds := [][]any{
		{"MULTI"},
		{"LREM", inProg, 1, raw},
		{"DECR", s.keys.Lock(j.Name)},
		{"HINCRBY", s.keys.LockInfo(j.Name), p.id, -1},
	}
	if fate != nil {
		cmds = append(cmds, fate)
	}
	for _, c := range cmds {
		if err := s.conn.Send(c[0].(string), c[1:]...); err != nil {
			return err
		}
	}
	// The worker moves on whatever happens, as gocraft/work's does.
	w.busy = false
	s.fetchAfter(w, 0)
	if _, err := s.conn.Do("EXEC"); err != nil {
		return fmt.Errorf("pool %s: remove job from in progress: %w", p.id, err)
	}
	s.stats.Finished++
	s.stats.FinishedBy[p.id]++
	if fate != nil {
		s.stats.Failed++
	}
	if _, err := s.conn.Do("DEL", s.keys.Prefix()+"worker:"+w.id); err != nil {
		return fmt.Errorf("worker %s: observe done: %w", w.id, err)
	}
	return nil
}
