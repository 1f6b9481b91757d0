package reaper

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/upstreamref"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// workState is a hand-built gocraft/work state, written with the exact key
// layout of DESIGN.md.
type workState struct {
	KnownJobs []string
	Pools     []statePool
	// Locks: job name -> lock value; a job type not listed has no lock key.
	Locks map[string]int64
	// LockInfo: job name -> pool -> value (fields of any pool, dead or live).
	LockInfo map[string]map[string]int64
	// Queues: job name -> jobs, left to right.
	Queues map[string][]string
	// Now is the unix time heartbeats are aged from; 0: Redis TIME at write.
	// Set it when one state is written twice, so both copies are the same.
	Now int64
}

type statePool struct {
	ID string
	// NoHeartbeat: no heartbeat hash. Else the heartbeat is AgeSec old.
	NoHeartbeat bool
	AgeSec      int64
	JobNames    []string
	// InProgress: job name -> jobs, left to right.
	InProgress map[string][]string
	// NotInSet leaves the pool out of <ns>:worker_pools.
	NotInSet bool
}

// write puts the state into Redis under namespace ns.
func (s workState) write(t testing.TB, c redis.Conn, ns string) {
	t.Helper()
	k := redisq.NewKeys(ns)
	now := s.Now
	if now == 0 {
		now = redistest.Time(t, c).Unix()
	}
	for _, j := range s.KnownJobs {
		redistest.Do(t, c, "SADD", k.KnownJobs(), j)
	}
	for _, p := range s.Pools {
		if !p.NotInSet {
			redistest.Do(t, c, "SADD", k.WorkerPools(), p.ID)
		}
		if !p.NoHeartbeat {
			redistest.Do(t, c, "HSET", k.Heartbeat(p.ID),
				"heartbeat_at", now-p.AgeSec, "started_at", now-3600,
				"job_names", strings.Join(p.JobNames, ","), "concurrency", 10,
				"worker_ids", "w1,w2", "host", "h", "pid", 42)
		}
		for job, jobs := range p.InProgress {
			for _, j := range jobs {
				redistest.Do(t, c, "RPUSH", k.InProgress(job, p.ID), j)
			}
		}
	}
	for job, v := range s.Locks {
		redistest.Do(t, c, "SET", k.Lock(job), v)
	}
	for job, m := range s.LockInfo {
		for pool, v := range m {
			redistest.Do(t, c, "HSET", k.LockInfo(job), pool, v)
		}
	}
	for job, jobs := range s.Queues {
		for _, j := range jobs {
			redistest.Do(t, c, "RPUSH", k.Queue(job), j)
		}
	}
}

// readSnapshot is the product's snapshot (redisq.ReadSnapshot) of ns.
func readSnapshot(t testing.TB, c redis.Conn, ns string, deadAfter time.Duration) *model.Snapshot {
	t.Helper()
	snap, err := redisq.ReadSnapshot(context.Background(), c, ns, deadAfter)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return snap
}

// upstreamReap is a port of gocraft/work v0.5.1's deadPoolReaper.reap
// (../shared/seed/dead_pool_reaper.go.txt), step for step, with Redis time
// for the clock and errors returned rather than dropped. curJobTypes are the
// reaping pool's own job types.
func upstreamReap(t testing.TB, c redis.Conn, ns string, curJobTypes []string) {
	t.Helper()
	k := redisq.NewKeys(ns)
	now := redistest.Time(t, c)
	ids, err := redis.Strings(c.Do("SMEMBERS", k.WorkerPools()))
	if err != nil {
		t.Fatal(err)
	}
	dead := map[string][]string{}
	for _, id := range ids {
		at, err := redis.Int64(c.Do("HGET", k.Heartbeat(id), "heartbeat_at"))
		if errors.Is(err, redis.ErrNil) {
			dead[id] = []string{}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Unix(at, 0).Add(model.DefaultDeadAfter).After(now) {
			continue
		}
		names, err := redis.String(c.Do("HGET", k.Heartbeat(id), "job_names"))
		if errors.Is(err, redis.ErrNil) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		dead[id] = strings.Split(names, ",")
	}
	requeue := redis.NewScript(-1, upstreamref.ReenqueueOne)
	locks := redis.NewScript(-1, upstreamref.ReapStaleLocks)
	for id, jobTypes := range dead {
		lockJobTypes := jobTypes
		if len(jobTypes) > 0 {
			args := []interface{}{4 * len(jobTypes)}
			for _, j := range jobTypes {
				args = append(args, k.InProgress(j, id), k.Queue(j), k.Lock(j), k.LockInfo(j))
			}
			args = append(args, id)
			for {
				v, err := redis.Values(requeue.Do(c, args...))
				if errors.Is(err, redis.ErrNil) {
					break
				}
				if err != nil {
					t.Fatalf("upstream requeue: %v", err)
				}
				if len(v) != 3 {
					t.Fatalf("upstream requeue: %d elements", len(v))
				}
			}
			redistest.Do(t, c, "DEL", k.Heartbeat(id))
		} else {
			lockJobTypes = curJobTypes
		}
		redistest.Do(t, c, "SREM", k.WorkerPools(), id)
		args := []interface{}{2 * len(lockJobTypes)}
		for _, j := range lockJobTypes {
			args = append(args, k.Lock(j), k.LockInfo(j))
		}
		args = append(args, id)
		if _, err := locks.Do(c, args...); err != nil {
			t.Fatalf("upstream stale locks: %v", err)
		}
	}
}

// dumpNamespace is redistest.Dump of one namespace with the prefix cut off, so that
// two namespaces can be compared key by key.
func dumpNamespace(t testing.TB, c redis.Conn, ns string) map[string]string {
	t.Helper()
	prefix := redisq.NewKeys(ns).Prefix()
	out := map[string]string{}
	for k, v := range redistest.Dump(t, c, prefix+"*") {
		out[strings.TrimPrefix(k, prefix)] = v
	}
	return out
}

// planAllDead plans the reap of every dead pool of ns, from a fresh read.
func planAllDead(t testing.TB, c redis.Conn, ns string) Plan {
	t.Helper()
	plan, err := NewPlan(readSnapshot(t, c, ns, model.DefaultDeadAfter), Targets{AllDead: true})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// requireUnchanged fails the test when two dumps of a namespace differ.
func requireUnchanged(t testing.TB, before, after map[string]string) {
	t.Helper()
	if d := diffDumps(before, after); d != "" {
		t.Fatalf("state changed:\n%s", d)
	}
}

// diffDumps lists the keys whose values differ between two dumps.
func diffDumps(a, b map[string]string) string {
	var keys []string
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	for k := range seen {
		if a[k] != b[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s:\n  want %.300q\n  got  %.300q\n", k, a[k], b[k])
	}
	return sb.String()
}

// planAndReap plans the reap of targets from a fresh read and executes it.
func planAndReap(t testing.TB, pool *redis.Pool, c redis.Conn, ns string, batch int, targets Targets) (Plan, Result, error) {
	t.Helper()
	snap := readSnapshot(t, c, ns, model.DefaultDeadAfter)
	plan, err := NewPlan(snap, targets)
	if err != nil {
		return plan, Result{}, err
	}
	res, err := NewReaper(pool, ns, batch).Reap(context.Background(), plan, nil)
	return plan, res, err
}

// jobPayloads is n job payloads of job name prefix.
func jobPayloads(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"name":"%s","id":"%s-%d","t":1700000000,"args":{}}`, prefix, prefix, i)
	}
	return out
}
