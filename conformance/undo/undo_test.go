// Package undo_test checks workq-tui's undo against real gocraft/work
// v0.5.1: dead jobs it made, requeued in bulk and put back, with its pool
// paused and with its pool running.
package undo_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestMain removes the workq-tui binary the tests build (redistest.Binary).
func TestMain(m *testing.M) { os.Exit(redistest.Main(m)) }

const (
	ns   = "work"
	jobs = 1000
)

type ctxType struct{}

// deadPool makes jobs dead "mail" jobs with a real pool (MaxFails 1), and
// leaves the pool running; from then on each job it takes succeeds and is
// counted in runs by ID.
type deadPool struct {
	pool *work.WorkerPool
	mu   sync.Mutex
	runs map[string]int
}

func startDeadPool(t *testing.T, srv *redistest.Server) *deadPool {
	t.Helper()
	rp := gcstate.RedisPool(t, srv.Addr())
	enq := work.NewEnqueuer(ns, rp)
	for i := 0; i < jobs; i++ {
		if _, err := enq.Enqueue("mail", work.Q{"i": i, "to": "a/b", "big": int64(12345678901234567)}); err != nil {
			t.Fatal(err)
		}
	}
	d := &deadPool{runs: map[string]int{}}
	var failing atomic.Bool
	failing.Store(true)
	d.pool = work.NewWorkerPool(ctxType{}, 2, ns, rp)
	d.pool.JobWithOptions("mail", work.JobOptions{MaxFails: 1}, func(j *work.Job) error {
		if failing.Load() {
			return fmt.Errorf("smtp down for %s", j.ID)
		}
		d.mu.Lock()
		d.runs[j.ID]++
		d.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		return nil
	})
	d.pool.Start()
	t.Cleanup(d.pool.Stop)
	c := srv.Dial()
	defer c.Close()
	gcstate.WaitFor(t, 60*time.Second, "every job dead", func() (bool, error) {
		n, err := redis.Int(c.Do("ZCARD", ns+":dead"))
		return n == jobs, err
	})
	gcstate.WaitFor(t, 10*time.Second, "no job in progress", func() (bool, error) {
		n, err := redis.Int(c.Do("GET", ns+":jobs:mail:lock"))
		return n == 0, err
	})
	failing.Store(false)
	return d
}

func (d *deadPool) ran() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]int, len(d.runs))
	for k, v := range d.runs {
		out[k] = v
	}
	return out
}

// dump is the namespace, but for the live pool's heartbeat, which it
// rewrites every 5 s.
func dump(t *testing.T, c redis.Conn) map[string]string {
	t.Helper()
	out := redistest.Dump(t, c, ns+":*")
	for k := range out {
		if strings.HasPrefix(k, ns+":worker_pools:") {
			delete(out, k)
		}
	}
	return out
}

func run(t *testing.T, bin, state string, args ...string) redistest.Result {
	t.Helper()
	return redistest.Run(t, bin, []string{"XDG_STATE_HOME=" + state}, args...)
}

// A bulk requeue of 1,000 dead jobs while the job type is paused (the pool
// serving it runs, and takes none), then undo --yes: the namespace is as it
// was, every job back in dead with its bytes and its score.
func TestUndoBulkRequeueWhilePaused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: not in -short")
	}
	srv := redistest.Start(t)
	startDeadPool(t, srv)
	c := srv.Dial()
	redistest.Do(t, c, "SET", ns+":jobs:mail:paused", "1")
	bin := redistest.Binary(t)
	state := t.TempDir()
	before := dump(t, c)
	r := run(t, bin, state, "--redis", srv.Addr(), "jobs", "dead", "requeue", "--all", "--yes")
	if r.Code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", r.Code, r.Stderr, r.Stdout)
	}
	if n, _ := redis.Int(c.Do("LLEN", ns+":jobs:mail")); n != jobs {
		t.Fatalf("queue holds %d after the requeue", n)
	}
	r = run(t, bin, state, "--redis", srv.Addr(), "undo", "--yes")
	if r.Code != 0 || !strings.Contains(r.Stdout, fmt.Sprintf("put back %d", jobs)) {
		t.Fatalf("undo: exit %d: %s\n%s", r.Code, r.Stderr, r.Stdout)
	}
	if after := dump(t, c); !reflect.DeepEqual(after, before) {
		for k, v := range before {
			if after[k] != v {
				t.Errorf("%s differs: %.200q, before %.200q", k, after[k], v)
			}
		}
		t.Fatalf("namespace after undo differs from before the requeue (%d keys, %d before)", len(after), len(before))
	}
}

var movedOnRe = regexp.MustCompile(`(\d+) moved on since the action`)

// The same with the pool running: the jobs it took before their put-back
// are reported moved on and ran exactly once; every other job is back in
// dead exactly as it was, and none of them ran.
func TestUndoBulkRequeueWhilePoolRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: not in -short")
	}
	srv := redistest.Start(t)
	p := startDeadPool(t, srv)
	c := srv.Dial()
	bin := redistest.Binary(t)
	state := t.TempDir()
	deadBefore := zset(t, c, ns+":dead")
	r := run(t, bin, state, "--redis", srv.Addr(), "jobs", "dead", "requeue", "--all", "--yes")
	if r.Code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", r.Code, r.Stderr, r.Stdout)
	}
	gcstate.WaitFor(t, 30*time.Second, "the pool taking some requeued jobs", func() (bool, error) {
		return len(p.ran()) >= 10, nil
	})
	r = run(t, bin, state, "--redis", srv.Addr(), "undo", "--yes")
	m := movedOnRe.FindStringSubmatch(r.Stdout)
	if r.Code != 1 || m == nil || !strings.Contains(r.Stderr, "moved on since the action") {
		t.Fatalf("undo: exit %d: %s\n%s", r.Code, r.Stderr, r.Stdout)
	}
	movedOn, _ := strconv.Atoi(m[1])
	gcstate.WaitFor(t, 30*time.Second, "the pool finishing what it took", func() (bool, error) {
		q, err := redis.Int(c.Do("LLEN", ns+":jobs:mail"))
		if err != nil {
			return false, err
		}
		l, err := redis.Int(c.Do("GET", ns+":jobs:mail:lock"))
		return q == 0 && l == 0, err
	})
	ran := p.ran()
	deadAfter := zset(t, c, ns+":dead")
	if len(ran) != movedOn || movedOn == 0 || movedOn == jobs {
		t.Fatalf("undo reported %d moved on; the pool ran %d jobs\n%s", movedOn, len(ran), r.Stdout)
	}
	t.Logf("the pool took %d of %d requeued jobs before the undo put them back", movedOn, jobs)
	for id, n := range ran {
		if n != 1 {
			t.Fatalf("job %s ran %d times", id, n)
		}
	}
	if len(deadAfter)+len(ran) != jobs {
		t.Fatalf("%d back in dead and %d ran, of %d", len(deadAfter), len(ran), jobs)
	}
	for member, score := range deadAfter {
		if deadBefore[member] != score {
			t.Fatalf("back in dead at %q, before at %q: %.200s", score, deadBefore[member], member)
		}
		var j struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(member), &j); err != nil || ran[j.ID] > 0 {
			t.Fatalf("job back in dead ran, or is not JSON (%v): %.200s", err, member)
		}
	}
}

// zset is a sorted set's members with their scores as Redis writes them.
func zset(t *testing.T, c redis.Conn, key string) map[string]string {
	t.Helper()
	v, err := redis.Strings(c.Do("ZRANGE", key, 0, -1, "WITHSCORES"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i := 0; i+1 < len(v); i += 2 {
		out[v[i]] = v[i+1]
	}
	return out
}
