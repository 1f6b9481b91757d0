// Package reliability_test proves reaping safe under concurrency against
// the real gocraft/work v0.5.1: two workq-tui reapers (each with its own
// connections) and gocraft/work's own dead pool reaper work on the same dead
// pools at the same time, while a live gocraft/work pool holds locks of the
// same job type. Jobs are conserved and every lock ends at exactly what the
// live pool holds, so a lock subtracted twice (or driven below 0) shows.
package reliability_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

const ns = "conc"

// liveHolds is how many jobs of type "alpha" the live pool holds (its
// concurrency; its handlers block).
const liveHolds = 3

// deadPools writes n dead pools the way crashed gocraft/work pools leave
// them (heartbeat 10 minutes old, in-progress lists, lock and lock_info
// raised by what each holds) on top of what the live pool holds. It returns
// the pool IDs and every job ID written.
func deadPools(t *testing.T, c redis.Conn, n, perType int) ([]string, map[string]bool) {
	t.Helper()
	k := redisq.NewKeys(ns)
	v, err := redis.Int64s(c.Do("TIME"))
	if err != nil {
		t.Fatal(err)
	}
	now := v[0]
	ids := map[string]bool{}
	var pools []string
	for p := 0; p < n; p++ {
		pool := fmt.Sprintf("dead%020d", p)
		pools = append(pools, pool)
		redistest.Do(t, c, "SADD", k.WorkerPools(), pool)
		redistest.Do(t, c, "HSET", k.Heartbeat(pool), "heartbeat_at", now-600, "started_at", now-7200, "job_names", "alpha,beta",
			"concurrency", perType*2, "worker_ids", "w", "host", "crashed", "pid", 1000+p)
		for _, job := range []string{"alpha", "beta"} {
			args := []any{k.InProgress(job, pool)}
			for i := 0; i < perType; i++ {
				id := fmt.Sprintf("%s-%s-%d", pool, job, i)
				ids[id] = true
				args = append(args, fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{}}`, job, id, now-700))
			}
			redistest.Do(t, c, "RPUSH", args...)
			redistest.Do(t, c, "INCRBY", k.Lock(job), perType)
			redistest.Do(t, c, "HSET", k.LockInfo(job), pool, perType)
		}
	}
	return pools, ids
}

// sample reads, in one MULTI (so atomically), each job type's lock and the
// total length of the dead pools' in-progress lists.
func sample(c redis.Conn, k redisq.Keys, pools []string) (lock, inProgress map[string]int64, err error) {
	jobs := []string{"alpha", "beta"}
	if err := c.Send("MULTI"); err != nil {
		return nil, nil, err
	}
	for _, job := range jobs {
		if err := c.Send("GET", k.Lock(job)); err != nil {
			return nil, nil, err
		}
		for _, p := range pools {
			if err := c.Send("LLEN", k.InProgress(job, p)); err != nil {
				return nil, nil, err
			}
		}
	}
	v, err := redis.Values(c.Do("EXEC"))
	if err != nil {
		return nil, nil, err
	}
	lock, inProgress = map[string]int64{}, map[string]int64{}
	i := 0
	for _, job := range jobs {
		lock[job], _ = redis.Int64(v[i], nil)
		i++
		for range pools {
			n, _ := redis.Int64(v[i], nil)
			inProgress[job] += n
			i++
		}
	}
	return lock, inProgress, nil
}

// TestTwoOfOursAndGocraftReaperAtOnce: a live gocraft/work pool holds 3
// jobs of "alpha" (its handlers block) and runs gocraft/work's dead pool
// reaper 10 s after its Start; just then two workq-tui reapers with their
// own connection pools and different batch sizes reap the same dead pools.
// Sampled atomically all along, lock(alpha) = 3 + the dead pools' alpha jobs
// in progress and lock(beta) = their beta jobs (never below, never lower
// than that: a double subtraction would show); at the end every job is in a
// queue or the live pool's list exactly once, the dead pools are gone with
// their lock_info fields, lock(alpha) = 3 with lock_info {live: 3}, and
// lock(beta) = 0. WORKQ_STRESS=1 uses 8 pools of 2 x 10,000 jobs.
func TestTwoOfOursAndGocraftReaperAtOnce(t *testing.T) {
	nPools, perType := 4, 1500
	if os.Getenv("WORKQ_STRESS") == "1" {
		nPools, perType = 8, 10000
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys(ns)

	start := time.Now()
	live := gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: liveHolds, Block: true,
		Jobs: []gcstate.JobType{{Name: "alpha", Enqueue: liveHolds}, {Name: "beta"}}})
	gcstate.WaitFor(t, 10*time.Second, "the live pool to hold its jobs", func() (bool, error) {
		n, err := redis.Int64(c.Do("LLEN", k.InProgress("alpha", live.ID)))
		return n == liveHolds, err
	})
	liveIDs := map[string]bool{}
	raw, err := redis.Strings(c.Do("LRANGE", k.InProgress("alpha", live.ID), 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		liveIDs[jobID(r)] = true
	}
	pools, ids := deadPools(t, c, nPools, perType)
	for id := range liveIDs {
		ids[id] = true
	}
	total := len(ids)

	// Sample the lock invariant until the reaps are over.
	stopSampling := make(chan struct{})
	var samples int
	var violations []string
	var sampled sync.WaitGroup
	sampled.Add(1)
	go func() {
		defer sampled.Done()
		sc := srv.Dial()
		for {
			select {
			case <-stopSampling:
				return
			default:
			}
			lock, inProg, err := sample(sc, k, pools)
			if err != nil {
				violations = append(violations, err.Error())
				return
			}
			samples++
			if lock["alpha"] != liveHolds+inProg["alpha"] || lock["beta"] != inProg["beta"] {
				violations = append(violations, fmt.Sprintf("lock alpha %d (want %d+%d), beta %d (want %d)",
					lock["alpha"], liveHolds, inProg["alpha"], lock["beta"], inProg["beta"]))
			}
			time.Sleep(time.Millisecond)
		}
	}()

	// gocraft/work's reaper fires 10 s after the live pool's Start.
	time.Sleep(time.Until(start.Add(10 * time.Second)))
	var wg sync.WaitGroup
	results := make([]reaper.Result, 2)
	errs := make([]error, 2)
	for i, batch := range []int{2, 7} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool := gcstate.RedisPool(t, srv.Addr())
			snap, err := redisq.NewClient(pool, ns, model.DefaultDeadAfter).Snapshot(context.Background())
			if err != nil {
				errs[i] = err
				return
			}
			plan, err := reaper.NewPlan(snap, reaper.Targets{AllDead: true})
			if err != nil {
				errs[i] = err
				return
			}
			results[i], errs[i] = reaper.NewReaper(pool, ns, batch).Reap(context.Background(), plan, nil)
		}()
	}
	wg.Wait()
	// gocraft/work's reaper may still be at work: wait for the dead pools to
	// be out of the set and their lists empty.
	gcstate.WaitFor(t, 60*time.Second, "the dead pools to be reaped", func() (bool, error) {
		n, err := redis.Int64(c.Do("SCARD", k.WorkerPools()))
		if err != nil {
			return false, err
		}
		_, inProg, err := sample(c, k, pools)
		return n == 1 && inProg["alpha"] == 0 && inProg["beta"] == 0, err
	})
	time.Sleep(300 * time.Millisecond) // gocraft's lock clean-up follows its SREM
	close(stopSampling)
	sampled.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("workq-tui reaper %d: %v", i, err)
		}
	}
	if len(violations) > 0 {
		t.Errorf("%d of %d samples broke lock = live holds + in progress, e.g. %s", len(violations), samples, violations[0])
	}

	// Conservation: every job once, in a queue or the live pool's list.
	seen := map[string]int{}
	for _, key := range []string{k.Queue("alpha"), k.Queue("beta"), k.InProgress("alpha", live.ID), k.InProgress("beta", live.ID)} {
		items, err := redis.Strings(c.Do("LRANGE", key, 0, -1))
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			seen[jobID(it)]++
		}
	}
	var lost, dup int
	for id := range ids {
		if seen[id] == 0 {
			lost++
		}
	}
	for id, n := range seen {
		if n > 1 || !ids[id] {
			dup++
		}
	}
	if lost > 0 || dup > 0 || len(seen) != total {
		t.Errorf("jobs: %d distinct seen, want %d; %d lost, %d duplicated or unknown", len(seen), total, lost, dup)
	}
	// Exact end state of the counters.
	for _, p := range pools {
		if n, _ := redis.Int(c.Do("EXISTS", k.Heartbeat(p))); n != 0 {
			t.Errorf("heartbeat of %s left", p)
		}
	}
	lockA, _ := redis.Int64(c.Do("GET", k.Lock("alpha")))
	lockB, _ := redis.Int64(c.Do("GET", k.Lock("beta")))
	infoA, _ := redis.StringMap(c.Do("HGETALL", k.LockInfo("alpha")))
	infoB, _ := redis.StringMap(c.Do("HGETALL", k.LockInfo("beta")))
	if lockA != liveHolds || len(infoA) != 1 || infoA[live.ID] != fmt.Sprint(liveHolds) {
		t.Errorf("alpha: lock %d, lock_info %v; want %d and {%s: %d}", lockA, infoA, liveHolds, live.ID, liveHolds)
	}
	for f, v := range infoB {
		if f != live.ID || v != "0" {
			t.Errorf("beta lock_info field %s=%s left", f, v)
		}
	}
	if lockB != 0 {
		t.Errorf("beta: lock %d, want 0", lockB)
	}
	ours := results[0].TotalMoved() + results[1].TotalMoved()
	upstream := int64(nPools*perType*2) - ours
	t.Logf("%d dead pools, %d jobs in progress: workq-tui reapers moved %d and %d (batch 2, 7), gocraft/work's reaper %d; %d lock samples, %d violations; %d jobs conserved, %d lost, %d duplicated; lock alpha %d (live holds %d), beta %d",
		nPools, nPools*perType*2, results[0].TotalMoved(), results[1].TotalMoved(), upstream, samples, len(violations), total, lost, dup, lockA, liveHolds, lockB)
	if results[0].TotalMoved() == 0 || results[1].TotalMoved() == 0 || upstream == 0 {
		t.Errorf("the three reapers did not all take part (moved %d, %d, gocraft %d): the test proved less than it claims",
			results[0].TotalMoved(), results[1].TotalMoved(), upstream)
	}
}

func jobID(raw string) string {
	i := strings.Index(raw, `"id":"`)
	if i < 0 {
		return raw
	}
	rest := raw[i+6:]
	return rest[:strings.IndexByte(rest, '"')]
}
