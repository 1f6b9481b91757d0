//go:build bench

package reaper

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/upstreamref"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestReapBench100k (make bench): a dead pool holds 100,000 jobs in
// progress. workq-tui's reaper (batches of DefaultBatch) and an upstream-style
// loop (gocraft/work's own requeue script, one call per job, then its stale
// lock script) requeue them on the same redis-server in the same run. It
// prints both times, their ratio and the longest single script call, and
// checks both end states are the same. No absolute-time assertion.
func TestReapBench100k(t *testing.T) {
	const n = 100_000
	srv := redistest.Start(t)
	c := srv.Dial()
	pool := srv.Pool()
	st := workState{
		KnownJobs: []string{"bulk"},
		Pools:     []statePool{{ID: "deadbeefdeadbeefdeadbeef", AgeSec: 600, JobNames: []string{"bulk"}}},
		Locks:     map[string]int64{"bulk": n},
		LockInfo:  map[string]map[string]int64{"bulk": {"deadbeefdeadbeefdeadbeef": n}},
	}
	st.Now = redistest.Time(t, c).Unix()
	for _, ns := range []string{"up", "us"} {
		st.write(t, c, ns)
		key := redisq.NewKeys(ns).InProgress("bulk", st.Pools[0].ID)
		jobs := jobPayloads("bulk", n)
		for i := 0; i < n; i += 1000 {
			args := []interface{}{key}
			for _, j := range jobs[i : i+1000] {
				args = append(args, j)
			}
			redistest.Do(t, c, "RPUSH", args...)
		}
	}

	// Upstream style: one script call per job, as deadPoolReaper does.
	k := redisq.NewKeys("up")
	id := st.Pools[0].ID
	requeue := redis.NewScript(upstreamref.ReenqueueKeysPerJob, upstreamref.ReenqueueOne)
	locks := redis.NewScript(2, upstreamref.ReapStaleLocks)
	var upMax time.Duration
	upStart := time.Now()
	for {
		t0 := time.Now()
		v, err := requeue.Do(c, k.InProgress("bulk", id), k.Queue("bulk"), k.Lock("bulk"), k.LockInfo("bulk"), id)
		if d := time.Since(t0); d > upMax {
			upMax = d
		}
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			break
		}
	}
	redistest.Do(t, c, "DEL", k.Heartbeat(id))
	redistest.Do(t, c, "SREM", k.WorkerPools(), id)
	if _, err := locks.Do(c, k.Lock("bulk"), k.LockInfo("bulk"), id); err != nil {
		t.Fatal(err)
	}
	upTime := time.Since(upStart)

	// Ours: plan, then Execute in batches.
	plan := planAllDead(t, c, "us")
	r := NewReaper(pool, "us", DefaultBatch)
	var usMax time.Duration
	calls := 0
	r.Observe = func(d time.Duration) {
		calls++
		if d > usMax {
			usMax = d
		}
	}
	usStart := time.Now()
	res, err := r.Reap(context.Background(), plan, nil)
	usTime := time.Since(usStart)
	if err != nil || res.TotalMoved() != n {
		t.Fatalf("moved %d, %v", res.TotalMoved(), err)
	}
	if d := diffDumps(dumpNamespace(t, c, "up"), dumpNamespace(t, c, "us")); d != "" {
		t.Fatalf("end states differ:\n%s", d)
	}
	fmt.Printf("reap of %d in-progress jobs of one dead pool, same redis-server:\n", n)
	fmt.Printf("  workq-tui (batch %d): %v in %d script calls, longest call %v\n", DefaultBatch, usTime.Round(time.Millisecond), calls, usMax.Round(10*time.Microsecond))
	fmt.Printf("  upstream-style loop:  %v in %d script calls, longest call %v\n", upTime.Round(time.Millisecond), n+2, upMax.Round(10*time.Microsecond))
	fmt.Printf("  ratio upstream/workq-tui: %.1fx\n", float64(upTime)/float64(usTime))
}
