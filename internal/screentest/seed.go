package screentest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// Seed writes the keys gocraft/work v0.5.1 writes (see DESIGN.md's
// layout), in namespace NS, times from Redis's clock.
type Seed struct {
	t   testing.TB
	srv *redistest.Server
	c   redis.Conn
	K   redisq.Keys
	// Now is Redis's time when the seed was made, in Unix seconds.
	Now int64
}

// NewSeed seeds srv's namespace ns.
func NewSeed(t testing.TB, srv *redistest.Server, ns string) *Seed {
	t.Helper()
	c := srv.Dial()
	t.Cleanup(func() { c.Close() })
	return &Seed{t: t, srv: srv, c: c, K: redisq.NewKeys(ns), Now: redistest.Time(t, c).Unix()}
}

// Do runs one Redis command and fails the test on an error.
func (s *Seed) Do(cmd string, args ...any) any {
	s.t.Helper()
	return redistest.Do(s.t, s.c, cmd, args...)
}

// Int is the integer reply of a command.
func (s *Seed) Int(cmd string, args ...any) int64 {
	s.t.Helper()
	n, err := redis.Int64(s.c.Do(cmd, args...))
	if err != nil && !errors.Is(err, redis.ErrNil) {
		s.t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return n
}

// Exists reports whether key exists.
func (s *Seed) Exists(key string) bool {
	s.t.Helper()
	return s.Int("EXISTS", key) == 1
}

// Job is a job's JSON as gocraft/work stores it.
func Job(name, id string, enqueuedAt int64) string {
	return fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{"n":1}}`, name, id, enqueuedAt)
}

// FailedJob is a job's JSON after a failure.
func FailedJob(name, id string, enqueuedAt, failedAt int64, err string) string {
	return fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{"n":1},"fails":4,"err":%q,"failed_at":%d}`,
		name, id, enqueuedAt, err, failedAt)
}

// Pool registers a pool serving jobs whose last heartbeat was age ago.
func (s *Seed) Pool(id string, age time.Duration, jobs ...string) {
	s.t.Helper()
	names := ""
	for i, j := range jobs {
		if i > 0 {
			names += ","
		}
		names += j
		s.Do("SADD", s.K.KnownJobs(), j)
	}
	at := s.Now - int64(age/time.Second)
	// At once, as a pool's heartbeat does: a screen reading meanwhile
	// never sees the pool without its heartbeat.
	s.Do("EVAL", "redis.call('SADD', KEYS[1], ARGV[1]) redis.call('HSET', KEYS[2], 'heartbeat_at', ARGV[2], 'started_at', ARGV[3], "+
		"'job_names', ARGV[4], 'host', ARGV[5], 'pid', 4242, 'concurrency', 4, 'worker_ids', 'w1,w2,w3,w4')",
		2, s.K.WorkerPools(), s.K.Heartbeat(id), id, at, at-3600, names, "host-"+id[:4])
}

// LivePool registers a pool serving jobs and beats for it every second
// until the test ends, as a live gocraft/work pool does every 5 s.
func (s *Seed) LivePool(id string, jobs ...string) {
	s.t.Helper()
	s.Pool(id, 0, jobs...)
	c := s.srv.Dial()
	key := s.K.Heartbeat(id)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		defer c.Close()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if now, err := redis.Int64s(c.Do("TIME")); err == nil {
					_, _ = c.Do("HSET", key, "heartbeat_at", now[0])
				}
			}
		}
	}()
	s.t.Cleanup(func() { close(done); <-stopped })
}

// DeadPool registers a pool serving jobs whose heartbeat stopped 10
// minutes ago.
func (s *Seed) DeadPool(id string, jobs ...string) { s.t.Helper(); s.Pool(id, 10*time.Minute, jobs...) }

// Running puts jobs of job type into pool's in-progress list, with the
// lock and lock_info counting them, as a fetch does: each job at once
// (gocraft/work's fetch is one script), so that a screen reading meanwhile
// never sees the list and the counters disagree.
func (s *Seed) Running(pool, job string, ids ...string) {
	s.t.Helper()
	for _, id := range ids {
		s.Do("EVAL", "redis.call('RPUSH', KEYS[1], ARGV[1]) redis.call('INCR', KEYS[2]) redis.call('HINCRBY', KEYS[3], ARGV[2], 1)",
			3, s.K.InProgress(job, pool), s.K.Lock(job), s.K.LockInfo(job), Job(job, id, s.Now-60), pool)
	}
}

// Queue enqueues jobs of job type, as Enqueue does (LPUSH).
func (s *Seed) Queue(job string, ids ...string) {
	s.t.Helper()
	s.Do("SADD", s.K.KnownJobs(), job)
	for _, id := range ids {
		s.Do("LPUSH", s.K.Queue(job), Job(job, id, s.Now-30))
	}
}

// Dead adds jobs of job type to the dead set, died a minute ago with err.
func (s *Seed) Dead(job, err string, ids ...string) {
	s.t.Helper()
	s.Do("SADD", s.K.KnownJobs(), job)
	for i, id := range ids {
		at := s.Now - 60 + int64(i)
		s.Do("ZADD", s.K.Dead(), at, FailedJob(job, id, at-600, at, err))
	}
}

// DeadAt adds jobs of job type to the dead set, all died at the same
// Unix second at, with err.
func (s *Seed) DeadAt(job, err string, at int64, ids ...string) {
	s.t.Helper()
	s.Do("SADD", s.K.KnownJobs(), job)
	for _, id := range ids {
		s.Do("ZADD", s.K.Dead(), at, FailedJob(job, id, at-600, at, err))
	}
}

// Retry adds jobs of job type to the retry set, due in a minute.
func (s *Seed) Retry(job, err string, ids ...string) {
	s.t.Helper()
	s.Do("SADD", s.K.KnownJobs(), job)
	for i, id := range ids {
		at := s.Now + 60 + int64(i)
		s.Do("ZADD", s.K.Retry(), at, FailedJob(job, id, s.Now-600, s.Now-5, err))
	}
}
