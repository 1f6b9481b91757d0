// Package throttle_test checks throttling a job type against real
// gocraft/work v0.5.1 worker pools: the cap holds while a queue drains,
// undo puts the value before back, and a pool start ends it.
package throttle_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

type jobCtx struct{}

// running counts the handlers of one job type running at once, and the
// most seen.
type running struct {
	now, most, done atomic.Int64
}

func (r *running) handler(hold time.Duration) func(*work.Job) error {
	return func(*work.Job) error {
		n := r.now.Add(1)
		for {
			m := r.most.Load()
			if n <= m || r.most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(hold)
		r.now.Add(-1)
		r.done.Add(1)
		return nil
	}
}

// startPool starts a pool of 8 workers for "slow" (no MaxConcurrency: it
// writes 0); stop stops it once.
func startPool(t *testing.T, rp *redis.Pool, ns string, r *running) (stop func()) {
	t.Helper()
	wp := work.NewWorkerPool(jobCtx{}, 8, ns, rp)
	wp.Job("slow", r.handler(60*time.Millisecond))
	wp.Start()
	var once sync.Once
	stop = func() { once.Do(wp.Stop) }
	t.Cleanup(stop)
	return stop
}

var journalID = regexp.MustCompile(`Journal: action (\S+) `)

// throttledOf is the throttled entry of job in `snapshot --json`, nil when
// there is none, and its max_concurrency.
func throttledOf(t *testing.T, bin string, args []string, job string) (map[string]any, float64) {
	t.Helper()
	r := redistest.Run(t, bin, nil, append(args, "snapshot", "--json")...)
	if r.Code != 0 && r.Code != 3 {
		t.Fatalf("snapshot: exit %d: %s", r.Code, r.Stderr)
	}
	var out struct {
		JobTypes []struct {
			Name           string         `json:"name"`
			MaxConcurrency float64        `json:"max_concurrency"`
			Throttled      map[string]any `json:"throttled"`
		} `json:"job_types"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("snapshot --json: %v\n%s", err, r.Stdout)
	}
	for _, jt := range out.JobTypes {
		if jt.Name == job {
			return jt.Throttled, jt.MaxConcurrency
		}
	}
	t.Fatalf("snapshot has no job type %s:\n%s", job, r.Stdout)
	return nil, 0
}

// TestThrottleHoldsWhileTheQueueDrains: `throttle slow 1` on a type with 8
// workers free leaves at most 1 of its jobs running at any sampled poll
// while its queue drains; snapshot marks it THROTTLED; undo puts back the
// 0 the pool wrote; a new throttle ends at the next pool start, and the
// snapshot says so.
func TestThrottleHoldsWhileTheQueueDrains(t *testing.T) {
	bin := redistest.Binary(t)
	srv := redistest.Start(t)
	rp := srv.Pool()
	t.Cleanup(func() { rp.Close() }) // after the pools' cleanups stop them
	c := srv.Dial()
	defer c.Close()
	const ns = "conf-throttle"
	key := ns + ":jobs:slow:max_concurrency"
	log := filepath.Join(t.TempDir(), "audit.log")
	args := []string{"--redis", srv.Addr(), "-n", ns, "--audit-log", log}

	var r running
	stopPool := startPool(t, rp, ns, &r)
	if v, err := redis.String(c.Do("GET", key)); err != nil || v != "0" {
		t.Fatalf("the pool wrote %s = %q (%v), want 0", key, v, err)
	}

	res := redistest.Run(t, bin, nil, append(args, "throttle", "slow", "1", "--yes")...)
	m := journalID.FindStringSubmatch(res.Stdout)
	if res.Code != 0 || m == nil || !strings.Contains(res.Stdout, "max_concurrency now 0 (no cap), after 1") {
		t.Fatalf("throttle slow 1: exit %d\n%s\n%s", res.Code, res.Stdout, res.Stderr)
	}
	action := m[1]
	if v, _ := redis.String(c.Do("GET", key)); v != "1" {
		t.Fatalf("after the throttle %s = %q, want 1", key, v)
	}
	if th, _ := throttledOf(t, bin, args, "slow"); th == nil || th["value"] != float64(1) || th["action"] != action {
		t.Errorf("snapshot after the throttle: throttled = %v, want value 1 and action %s", th, action)
	}

	const jobs = 25
	enq := work.NewEnqueuer(ns, rp)
	for i := 0; i < jobs; i++ {
		if _, err := enq.Enqueue("slow", nil); err != nil {
			t.Fatal(err)
		}
	}
	// Sample what Redis says runs (the lock, the in-progress list) while
	// the queue drains; the handlers count what really runs.
	samples, mostLock := 0, int64(0)
	deadline := time.Now().Add(30 * time.Second)
	for r.done.Load() < jobs {
		if time.Now().After(deadline) {
			t.Fatalf("the queue did not drain: %d of %d done", r.done.Load(), jobs)
		}
		lock, err := redis.Int64(c.Do("GET", ns+":jobs:slow:lock"))
		if err != nil && !errors.Is(err, redis.ErrNil) {
			t.Fatal(err)
		}
		samples++
		mostLock = max(mostLock, lock)
		time.Sleep(10 * time.Millisecond)
	}
	if most := r.most.Load(); most != 1 || mostLock > 1 {
		t.Errorf("with max_concurrency 1: at most %d handlers ran at once, the lock reached %d (over %d samples); want 1 and at most 1", most, mostLock, samples)
	}
	t.Logf("%d jobs drained with at most %d running (%d samples of the lock, highest %d)", jobs, r.most.Load(), samples, mostLock)

	res = redistest.Run(t, bin, nil, append(args, "undo", action, "--yes")...)
	if res.Code != 0 || !strings.Contains(res.Stdout, "Undo: put back 1.") {
		t.Fatalf("undo %s: exit %d\n%s\n%s", action, res.Code, res.Stdout, res.Stderr)
	}
	if v, _ := redis.String(c.Do("GET", key)); v != "0" {
		t.Errorf("after the undo %s = %q, want the 0 the pool wrote", key, v)
	}
	if th, _ := throttledOf(t, bin, args, "slow"); th != nil {
		t.Errorf("snapshot after the undo still marks the throttle: %v", th)
	}

	// Throttled again, then the pool restarts: it writes its own 0.
	res = redistest.Run(t, bin, nil, append(args, "throttle", "slow", "2", "--yes")...)
	if res.Code != 0 {
		t.Fatalf("throttle slow 2: exit %d\n%s", res.Code, res.Stderr)
	}
	if th, mc := throttledOf(t, bin, args, "slow"); th == nil || mc != 2 {
		t.Fatalf("snapshot after throttle slow 2: throttled %v, max_concurrency %v", th, mc)
	}
	stopPool()
	startPool(t, rp, ns, &r)
	th, mc := throttledOf(t, bin, args, "slow")
	if th != nil || mc != 0 {
		t.Errorf("after a pool restart: throttled %v, max_concurrency %v; want no mark and 0", th, mc)
	}
	r2 := redistest.Run(t, bin, nil, append(args, "snapshot")...)
	if strings.Contains(r2.Stdout, "THROTTLED") {
		t.Errorf("snapshot after a pool restart still says THROTTLED:\n%s", r2.Stdout)
	}
}
