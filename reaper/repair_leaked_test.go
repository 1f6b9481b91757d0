package reaper

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// leakedEntry is a stand-in as gocraft/work master writes one.
func leakedEntry(id string) string {
	return `{"name":"sync","id":"` + id + `","t":1,"args":{"rev":1},"unique":true,"unique_key":"work:unique:sync:{\"a\":1}\n"}`
}

// Pool p1 holds a leaked stand-in and a running job (counted, its
// worker busy); p2 a v0.5.1 job nothing counts. repair-locks counts the
// running job and p2's, never the leaked one; removed before the script
// runs, the leaked entry is not counted either.
func TestRepairLocksLeavesLeakedOut(t *testing.T) {
	for _, gone := range []bool{false, true} {
		srv := redistest.Start(t)
		c := srv.Dial()
		k := redisq.NewKeys("work")
		ctx := context.Background()
		redistest.Do(t, c, "SADD", k.WorkerPools(), "p1", "p2")
		redistest.Do(t, c, "SADD", k.KnownJobs(), "sync")
		redistest.Do(t, c, "HSET", k.Heartbeat("p1"), "heartbeat_at", 1, "worker_ids", "w1,w2")
		redistest.Do(t, c, "HSET", "work:worker:w1", "job_id", "run1", "job_name", "sync")
		redistest.Do(t, c, "RPUSH", k.InProgress("sync", "p1"), leakedEntry("leak1"), leakedEntry("run1"))
		redistest.Do(t, c, "RPUSH", k.InProgress("sync", "p2"), `{"name":"sync","id":"old","t":1,"args":{}}`)
		redistest.Do(t, c, "SET", k.Lock("sync"), 1)
		redistest.Do(t, c, "SET", k.MaxConcurrency("sync"), 1)
		redistest.Do(t, c, "HSET", k.LockInfo("sync"), "p1", 1)

		plan, err := onConn(c, k, 0).PlanRepairLocks(ctx, []string{"sync"})
		if err != nil {
			t.Fatal(err)
		}
		jp := plan.Jobs[0]
		if len(jp.Leaked) != 1 || jp.Leaked[0].ID != "leak1" || jp.LockAfter != 2 || jp.LockInfoAfter["p1"] != 1 || jp.LockInfoAfter["p2"] != 1 {
			t.Fatalf("plan: %+v", jp)
		}
		if text := LockRepairPlanText(plan, 0); !strings.Contains(text, "not counted: 1 entry") || !strings.Contains(text, "leak1") {
			t.Errorf("plan text does not list the leaked entry apart:\n%s", text)
		}
		if gone {
			redistest.Do(t, c, "LREM", k.InProgress("sync", "p1"), 1, leakedEntry("leak1"))
		}
		if _, err := onConn(c, k, 0).RepairLocks(ctx, plan); err != nil {
			t.Fatal(err)
		}
		if lock, _ := redis.Int(c.Do("GET", k.Lock("sync"))); lock != 2 {
			t.Errorf("gone %v: lock %d, want 2", gone, lock)
		}
		if p1, _ := redis.Int(c.Do("HGET", k.LockInfo("sync"), "p1")); p1 != 1 {
			t.Errorf("gone %v: lock_info[p1] %d, want 1", gone, p1)
		}
	}
}

// A repair planned from a read that did not look for leaked entries (the
// screen's poll) leaves a type whose lists hold one it did not list alone,
// rather than raising lock over it; with the entry listed (by an earlier
// full read) it repairs, leaving the entry out.
func TestRepairLocksUnawarePlanRefusesUnlistedLeak(t *testing.T) {
	for _, listed := range []bool{false, true} {
		srv := redistest.Start(t)
		c := srv.Dial()
		k := redisq.NewKeys("work")
		ctx := context.Background()
		redistest.Do(t, c, "SADD", k.WorkerPools(), "p1", "p2")
		redistest.Do(t, c, "SADD", k.KnownJobs(), "sync")
		redistest.Do(t, c, "HSET", k.Heartbeat("p1"), "heartbeat_at", 1, "job_names", "sync", "worker_ids", "w1,w2")
		redistest.Do(t, c, "HSET", "work:worker:w1", "job_id", "run1", "job_name", "sync")
		redistest.Do(t, c, "RPUSH", k.InProgress("sync", "p1"), leakedEntry("leak1"), leakedEntry("run1"))
		redistest.Do(t, c, "RPUSH", k.InProgress("sync", "p2"), `{"name":"sync","id":"old","t":1,"args":{}}`)
		redistest.Do(t, c, "SET", k.Lock("sync"), 1)
		redistest.Do(t, c, "SET", k.MaxConcurrency("sync"), 1)
		redistest.Do(t, c, "HSET", k.LockInfo("sync"), "p1", 1)

		snap := readSnapshot(t, c, "work", 0)
		if len(snap.Leaked) != 1 {
			t.Fatalf("the full read found %d leaked entries, want 1", len(snap.Leaked))
		}
		snap.LeakAware = false
		if !listed {
			snap.Leaked = nil
		}
		plan, err := NewLockRepairPlan(snap, []string{"sync"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := onConn(c, k, 0).RepairLocks(ctx, plan)
		lock, _ := redis.Int(c.Do("GET", k.Lock("sync")))
		if !listed {
			if !errors.Is(err, ErrUnlistedLeaks) || res.Jobs[0].Applied || !strings.Contains(err.Error(), "1 leaked in-progress entry") {
				t.Errorf("unlisted: err %v, result %+v; want ErrUnlistedLeaks, nothing applied", err, res.Jobs)
			}
			if lock != 1 {
				t.Errorf("unlisted: lock %d, want 1 (unchanged)", lock)
			}
			continue
		}
		if err != nil || lock != 2 {
			t.Errorf("listed: err %v, lock %d; want the repair, lock 2", err, lock)
		}
	}
}
