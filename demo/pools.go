// The simulated worker pools: what gocraft/work's WorkerPool writes when it
// starts, its heartbeat every 5 s, and its retry and scheduled requeuers.

package demo

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// beatPeriod is gocraft/work's heartbeat period.
const beatPeriod = 5 * time.Second

// pool is one simulated gocraft/work WorkerPool.
type pool struct {
	id        string
	host      string
	pid       int
	startedAt int64
	jobNames  []string // sorted
	workerIDs []string // sorted
	workers   []*worker
	fetch     *redis.Script
	fetchKeys []sample
	requeue   *redis.Script
	hung      bool // jobs it takes never finish
	crashed   bool // nothing of it runs any more
}

// startPool is what WorkerPool.Start writes, then the pool's loops.
func (s *Sim) startPool(p *pool) error {
	// writeConcurrencyControlsToRedis: SET max_concurrency, 0 included.
	for _, j := range p.jobNames {
		if _, err := s.conn.Do("SET", s.keys.MaxConcurrency(j), s.specs[j].maxConcurrency); err != nil {
			return fmt.Errorf("pool %s: set max_concurrency: %w", p.id, err)
		}
	}
	// writeKnownJobsToRedis.
	args := redis.Args{s.keys.KnownJobs()}
	for _, j := range p.jobNames {
		args = args.Add(j)
	}
	if _, err := s.conn.Do("SADD", args...); err != nil {
		return fmt.Errorf("pool %s: sadd known_jobs: %w", p.id, err)
	}
	// Heartbeat right away and every 5 s, from an offset within the period.
	s.after(time.Duration(s.rng.Intn(int(beatPeriod/time.Millisecond)))*time.Millisecond, func() error { return s.heartbeatLoop(p) })
	for _, w := range p.workers {
		w := w
		s.fetchAfter(w, time.Duration(s.rng.Intn(1000))*time.Millisecond)
	}
	s.after(time.Duration(s.rng.Intn(1000))*time.Millisecond, func() error { return s.requeueLoop(p) })
	return nil
}

// heartbeatLoop is workerPoolHeartbeater.heartbeat every 5 s.
func (s *Sim) heartbeatLoop(p *pool) error {
	if p.crashed {
		return nil
	}
	s.after(beatPeriod, func() error { return s.heartbeatLoop(p) })
	if err := s.conn.Send("SADD", s.keys.WorkerPools(), p.id); err != nil {
		return err
	}
	if err := s.conn.Send("HMSET", s.keys.Heartbeat(p.id),
		"heartbeat_at", s.now.Unix(),
		"started_at", p.startedAt,
		"job_names", strings.Join(p.jobNames, ","),
		"concurrency", len(p.workers),
		"worker_ids", strings.Join(p.workerIDs, ","),
		"host", p.host,
		"pid", p.pid,
	); err != nil {
		return err
	}
	if _, err := s.conn.Do(""); err != nil {
		return fmt.Errorf("pool %s: heartbeat: %w", p.id, err)
	}
	return nil
}

// deleteHeartbeat removes a pool's heartbeat hash, as an eviction or a
// hand-run DEL would, leaving its ID in the set.
func (s *Sim) deleteHeartbeat(p *pool) error {
	_, err := s.conn.Do("DEL", s.keys.Heartbeat(p.id))
	return err
}

// requeueLoop is the pool's retry and scheduled requeuers, every second.
func (s *Sim) requeueLoop(p *pool) error {
	if p.crashed {
		return nil
	}
	s.after(time.Second, func() error { return s.requeueLoop(p) })
	// The script on a zset with nothing due changes nothing; ask first, in
	// one round trip without Lua, to keep the simulation cheap.
	zsets := []string{s.keys.Retry(), s.keys.Scheduled()}
	for _, z := range zsets {
		if err := s.conn.Send("ZCOUNT", z, "-inf", s.now.Unix()); err != nil {
			return err
		}
	}
	due, err := redis.Int64s(s.conn.Do(""))
	if err != nil {
		return fmt.Errorf("pool %s: requeue: %w", p.id, err)
	}
	for i, zset := range zsets {
		if due[i] == 0 {
			continue
		}
		args := redis.Args{zset, s.keys.Dead()}
		for _, j := range p.jobNames {
			args = args.Add(s.keys.Queue(j))
		}
		args = args.Add(s.keys.JobsPrefix(), s.now.Unix())
		for {
			res, err := redis.String(p.requeue.Do(s.conn, args...))
			if errors.Is(err, redis.ErrNil) {
				break
			}
			if err != nil {
				return fmt.Errorf("pool %s: requeue from %s: %w", p.id, zset, err)
			}
			if res != "ok" && res != "dead" {
				break
			}
		}
	}
	return nil
}
