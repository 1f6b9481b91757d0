// Package poll_test checks the screen's cheap poll and its paced sweep
// against real gocraft/work v0.5.1 pools fetching and finishing jobs.
package poll_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestPollCountsEveryJobInItsPool: live pools fetch and finish jobs as fast
// as they can while the screen's polls run, with a sweep now and then. At
// every poll, each job in progress is counted in the pool that holds it:
// per pool and job type, the in-progress length equals the pool's
// lock_info field, and per job type the in-progress total equals lock and
// the lock_info total (nothing lost from the counts). Every sweep agrees
// (no drift).
func TestPollCountsEveryJobInItsPool(t *testing.T) {
	srv := redistest.Start(t)
	const ns = "conf-poll"
	c := srv.Dial()
	defer c.Close()
	// Idle pools (heartbeats in the future: alive, never reaped) make the
	// heartbeat round trip big, so other clients' commands land between
	// the poll's round trips.
	for i := 0; i < 300; i++ {
		id := fmt.Sprintf("idle%020d", i)
		_ = c.Send("SADD", ns+":worker_pools", id)
		_ = c.Send("HSET", ns+":worker_pools:"+id, "heartbeat_at", time.Now().Add(time.Hour).Unix(), "job_names", "tick,tock,tack")
	}
	if _, err := c.Do(""); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 8, Hold: time.Millisecond,
			Jobs: []gcstate.JobType{{Name: "tick", Enqueue: 1500}, {Name: "tock", MaxConcurrency: 3, Enqueue: 1500}, {Name: "tack", Enqueue: 1500}}})
	}
	pool := srv.Pool()
	defer pool.Close()
	cl := redisq.NewClient(pool, ns, 0)
	ctx := context.Background()
	var polls, busy, sweeps int
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		snap, err := cl.Poll(ctx, redisq.PollRequest{})
		if err != nil {
			t.Fatal(err)
		}
		polls++
		checkPoll(t, polls, snap)
		var inProgress, queued int64
		for _, jt := range snap.JobTypes {
			inProgress += jt.InProgress
			queued += jt.Queued
		}
		if inProgress > 0 {
			busy++
		}
		if polls%25 == 0 {
			sw, err := cl.Sweep(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sweeps++
			for _, jt := range sw.JobTypes {
				if jt.Drift {
					t.Errorf("sweep %d: drift on %s: lock %d, lock_info %d, in progress %d", sweeps, jt.Name, jt.Lock, jt.LockInfoTotal, jt.InProgress)
				}
			}
		}
		if inProgress == 0 && queued == 0 {
			break
		}
	}
	t.Logf("%d polls, %d with jobs in progress, %d sweeps", polls, busy, sweeps)
	if busy < 10 {
		t.Errorf("only %d polls saw a job in progress: the test did not test much", busy)
	}
}

func checkPoll(t *testing.T, n int, snap *model.Snapshot) {
	t.Helper()
	for _, p := range snap.Pools {
		for job, k := range p.InProgress {
			if p.LockInfo[job] != k {
				t.Errorf("poll %d: pool %s holds %d %s jobs, its lock_info says %d", n, p.ID, k, job, p.LockInfo[job])
			}
		}
		if p.InProgressTotal() != p.LocksHeld() {
			t.Errorf("poll %d: pool %s: in progress %d, lock_info total %d (%v, %v)", n, p.ID, p.InProgressTotal(), p.LocksHeld(), p.InProgress, p.LockInfo)
		}
	}
	for _, jt := range snap.JobTypes {
		if jt.InProgress != jt.LockInfoTotal || jt.Lock != jt.LockInfoTotal {
			t.Errorf("poll %d: %s: lock %d, lock_info total %d, in progress %d", n, jt.Name, jt.Lock, jt.LockInfoTotal, jt.InProgress)
		}
		if jt.Drift {
			t.Errorf("poll %d: drift on %s", n, jt.Name)
		}
	}
}
