package reaper

import (
	"context"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// A dead pool holding a leaked stand-in: a reap planned from a snapshot
// removes it instead of requeueing it; one planned from a read that did not
// look for leaks (the screen's poll) leaves the pool alone; with
// RequeueLeaked it goes back to the queue as upstream's reaper does.
func TestReapLeakedStandIn(t *testing.T) {
	for _, tc := range []struct {
		name          string
		unaware       bool
		requeue       bool
		queued, inLst int
		skipped       bool
	}{
		{name: "removed", queued: 0},
		{name: "plan without the leak read", unaware: true, inLst: 1, skipped: true},
		{name: "requeue-leaked", requeue: true, queued: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			c := srv.Dial()
			k := redisq.NewKeys("work")
			redistest.Do(t, c, "SADD", k.WorkerPools(), "p1")
			redistest.Do(t, c, "SADD", k.KnownJobs(), "sync")
			redistest.Do(t, c, "HSET", k.Heartbeat("p1"), "heartbeat_at", 1, "job_names", "sync", "worker_ids", "w1")
			redistest.Do(t, c, "RPUSH", k.InProgress("sync", "p1"), leakedEntry("leak1"))
			redistest.Do(t, c, "SET", k.Lock("sync"), 0)
			redistest.Do(t, c, "HSET", k.LockInfo("sync"), "p1", 0)
			snap := readSnapshot(t, c, "work", model.DefaultDeadAfter)
			if tc.unaware {
				snap.LeakAware, snap.Leaked = false, nil
			}
			plan, err := NewPlan(snap, Targets{AllDead: true, RequeueLeaked: tc.requeue})
			if err != nil {
				t.Fatal(err)
			}
			if listed := len(plan.Pools[0].Leaked) == 1; listed != (!tc.unaware && !tc.requeue) {
				t.Fatalf("plan lists %d leaked entries", len(plan.Pools[0].Leaked))
			}
			res, _ := onConn(c, k, 0).Reap(context.Background(), plan, nil)
			pr := res.Pools[0]
			if (pr.Skipped != "") != tc.skipped || tc.skipped && !strings.Contains(pr.Skipped, "1 leaked in-progress entry") {
				t.Errorf("result %+v", pr)
			}
			q, _ := redis.Int(c.Do("LLEN", k.Queue("sync")))
			l, _ := redis.Int(c.Do("LLEN", k.InProgress("sync", "p1")))
			if q != tc.queued || l != tc.inLst {
				t.Errorf("queue %d, in-progress %d; want %d, %d", q, l, tc.queued, tc.inLst)
			}
		})
	}
}
