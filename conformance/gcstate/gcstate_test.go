package gcstate_test

import (
	"os"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(m.Run())
}

// TestLiveAndKilled checks the helpers themselves: a live pool heartbeats and
// processes its jobs; a killed pool leaves its jobs in progress with lock and
// lock_info counting them, and its heartbeat no longer advances.
func TestLiveAndKilled(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "gcs"

	live := gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: "fast", Enqueue: 5}}})
	gcstate.WaitFor(t, 10*time.Second, "the live pool to drain its queue", func() (bool, error) {
		n, err := redis.Int(c.Do("LLEN", ns+":jobs:fast"))
		return n == 0, err
	})

	spec := gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 4,
		Jobs: []gcstate.JobType{{Name: "slow", Enqueue: 3}, {Name: "capped", MaxConcurrency: 1, Enqueue: 3}}}
	if got := spec.ExpectedInProgress(); got != 4 {
		t.Fatalf("ExpectedInProgress = %d, want 4", got)
	}
	k := gcstate.StartKilled(t, spec)
	if k.ID == live.ID || k.ID == "" {
		t.Fatalf("killed pool ID %q (live %q)", k.ID, live.ID)
	}
	if k.InProgress["capped"] != 1 || k.InProgress["slow"] != 3 {
		t.Fatalf("in progress at kill = %v, want capped 1, slow 3", k.InProgress)
	}
	for job, n := range k.InProgress {
		lock, err := redis.Int64(c.Do("GET", ns+":jobs:"+job+":lock"))
		if err != nil || lock != n {
			t.Errorf("%s lock = %d (%v), want %d", job, lock, err, n)
		}
		li, err := redis.Int64(c.Do("HGET", ns+":jobs:"+job+":lock_info", k.ID))
		if err != nil || li != n {
			t.Errorf("%s lock_info[%s] = %d (%v), want %d", job, k.ID, li, err, n)
		}
	}
	isMember, err := redis.Bool(c.Do("SISMEMBER", ns+":worker_pools", k.ID))
	if err != nil || !isMember {
		t.Fatalf("killed pool not in worker_pools (%v)", err)
	}

	live.Stop()
	isMember, err = redis.Bool(c.Do("SISMEMBER", ns+":worker_pools", live.ID))
	if err != nil || isMember {
		t.Fatalf("stopped live pool still in worker_pools (%v)", err)
	}
}
