// Package orphans_test checks against the real gocraft/work v0.5.1 that the
// orphans gocraft/work's own reaper leaves behind are found and
// requeued by workq-tui, and a lock raised above max_concurrency is repaired
// so that live gocraft/work pools drain the queue again. It has a directory
// of its own because it needs its own TestMain (gcstate's killed-pool child).
package orphans_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(redistest.Main(m))
}

func llen(t *testing.T, c redis.Conn, key string) int64 {
	t.Helper()
	n, err := redis.Int64(c.Do("LLEN", key))
	if err != nil {
		t.Fatalf("LLEN %s: %v", key, err)
	}
	return n
}

// A pool is killed with jobs of two types in progress; its heartbeat then
// vanishes, and gocraft/work's own reaper (run by a live pool 10 s after it
// starts) removes it from worker_pools without moving its jobs (upstream
// defect 1), releasing the locks only of the job types the live pool
// registers. workq-tui's scan finds both lists, requeue moves them back with
// the right locks, and the live pool processes them.
func TestOrphansLeftByUpstreamReaperAreFoundAndRequeued(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "conf"
	k := redisq.NewKeys(ns)
	ctx := context.Background()
	const shared, stuck = "orph:job", "stuck" // a ':' in a job name on purpose

	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 4,
		Jobs: []gcstate.JobType{{Name: shared, MaxConcurrency: 2, Enqueue: 5}, {Name: stuck, MaxConcurrency: 2, Enqueue: 2}}})
	if killed.InProgress[shared] != 2 || killed.InProgress[stuck] != 2 {
		t.Fatalf("killed pool holds %v, want 2 of each", killed.InProgress)
	}
	redistest.Do(t, c, "DEL", k.Heartbeat(killed.ID))

	// The live pool handles `shared` only; its reaper's first run (10 s
	// after start) takes the pool without heartbeat for dead, SREMs it and
	// releases its locks of `shared`, not of `stuck`.
	live := gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: shared, MaxConcurrency: 2}}})
	gcstate.WaitFor(t, 30*time.Second, "gocraft/work's reaper to remove the killed pool", func() (bool, error) {
		member, err := redis.Bool(c.Do("SISMEMBER", k.WorkerPools(), killed.ID))
		return !member, err
	})
	// The 3 queued jobs of `shared` are processed once the lock is released.
	gcstate.WaitFor(t, 20*time.Second, "the live pool to drain the queue", func() (bool, error) {
		return llen(t, c, k.Queue(shared)) == 0 && llen(t, c, k.InProgress(shared, live.ID)) == 0, nil
	})
	if llen(t, c, k.InProgress(shared, killed.ID)) != 2 || llen(t, c, k.InProgress(stuck, killed.ID)) != 2 {
		t.Fatal("upstream's reaper moved the jobs: this test no longer shows its defect")
	}

	// Noise, so that the scan has to walk past other keys.
	for i := 0; i < 2000; i++ {
		redistest.Do(t, c, "SET", fmt.Sprintf("noise:%d", i), "x")
	}
	res, err := redisq.ScanOrphans(ctx, c, k, 100, nil)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	want := []model.InProgressList{
		{Key: k.InProgress(shared, killed.ID), JobName: shared, PoolID: killed.ID, Length: 2},
		{Key: k.InProgress(stuck, killed.ID), JobName: stuck, PoolID: killed.ID, Length: 2},
	}
	if !reflect.DeepEqual(res.Orphans, want) {
		t.Fatalf("orphans:\n got %+v\nwant %+v", res.Orphans, want)
	}
	snap, err := redisq.NewClient(redisq.OneConn(c), ns, model.DefaultDeadAfter).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap.Orphans = res.Orphans
	snap.Findings = model.Findings(snap)
	if !snap.HasProblems() {
		t.Error("orphans are not reported as problems")
	}

	lockOf := func(job string) (int64, map[string]int64) {
		lock, _ := redis.Int64(c.Do("GET", k.Lock(job)))
		info, err := redis.Int64Map(c.Do("HGETALL", k.LockInfo(job)))
		if err != nil {
			t.Fatal(err)
		}
		return lock, info
	}
	if lock, info := lockOf(stuck); lock != 2 || info[killed.ID] != 2 {
		t.Fatalf("before requeue, %s: lock %d lock_info %v; want 2 and 2 (never released upstream)", stuck, lock, info)
	}
	if _, info := lockOf(shared); info[killed.ID] != 0 {
		t.Fatalf("before requeue, %s: lock_info %v; want no field of the killed pool", shared, info)
	}

	plan, err := reaper.NewReaper(redisq.OneConn(c), ns, 0).PlanRequeue(ctx, []string{want[0].Key, want[1].Key}, model.DefaultDeadAfter)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if _, err := reaper.NewReaper(redisq.OneConn(c), ns, 1).Requeue(ctx, plan, nil); err != nil {
		t.Fatalf("requeue: %v", err)
	}
	// `stuck` has no live pool: its jobs wait in the queue, its lock freed.
	if n := llen(t, c, k.Queue(stuck)); n != 2 {
		t.Errorf("%s queue has %d jobs, want 2", stuck, n)
	}
	if lock, info := lockOf(stuck); lock != 0 || info[killed.ID] != 0 {
		t.Errorf("after requeue, %s: lock %d lock_info %v; want 0", stuck, lock, info)
	}
	// `shared`: the live pool processes the requeued jobs, and the lock
	// ends at 0 (nothing was released twice).
	gcstate.WaitFor(t, 20*time.Second, "the live pool to process the requeued jobs", func() (bool, error) {
		return llen(t, c, k.Queue(shared)) == 0 && llen(t, c, k.InProgress(shared, live.ID)) == 0, nil
	})
	if lock, _ := lockOf(shared); lock != 0 {
		t.Errorf("after processing, %s lock = %d, want 0", shared, lock)
	}
	res, err = redisq.ScanOrphans(ctx, c, k, 100, nil)
	if err != nil || len(res.Orphans) != 0 {
		t.Errorf("after requeue: orphans %+v, err %v", res.Orphans, err)
	}
}

// A lock raised above max_concurrency (the drift of upstream issues #55 and
// #192) stops a live gocraft/work pool: the queue grows while its workers
// idle. repair-locks resets it and the pool drains the queue.
func TestDriftedLockRepairedThenLivePoolsDrain(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "drift"
	k := redisq.NewKeys(ns)
	ctx := context.Background()
	const job = "capped:job"

	live := []*gcstate.LivePool{
		gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2, Jobs: []gcstate.JobType{{Name: job, MaxConcurrency: 3}}}),
		gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2, Jobs: []gcstate.JobType{{Name: job, MaxConcurrency: 3}}}),
	}
	// The drift: a lock and a lock_info field counting jobs nobody holds.
	redistest.Do(t, c, "SET", k.Lock(job), 5)
	redistest.Do(t, c, "HSET", k.LockInfo(job), "ffffffffffffffffffffffff", 5)
	gcstate.Enqueue(t, srv.Addr(), ns, job, 20)
	time.Sleep(2 * time.Second)
	if n := llen(t, c, k.Queue(job)); n != 20 {
		t.Fatalf("queue has %d jobs after 2s, want 20: the drifted lock should block every worker", n)
	}
	snap, err := redisq.NewClient(redisq.OneConn(c), ns, model.DefaultDeadAfter).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if jt, ok := snap.JobType(job); !ok || !jt.Drift {
		t.Fatalf("snapshot does not report the drift: %+v", jt)
	}

	plan, err := reaper.NewReaper(redisq.OneConn(c), ns, 0).PlanRepairLocks(ctx, []string{job})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	jp := plan.Jobs[0]
	if jp.LockBefore != 5 || jp.LockAfter != 0 || len(jp.LockInfoAfter) != 0 || len(jp.Pools) != 2 || jp.MaxConcurrency != 3 {
		t.Fatalf("plan: %+v", jp)
	}
	if _, err := reaper.NewReaper(redisq.OneConn(c), ns, 0).RepairLocks(ctx, plan); err != nil {
		t.Fatalf("repair: %v", err)
	}
	gcstate.WaitFor(t, 30*time.Second, "the live pools to drain the queue", func() (bool, error) {
		n := llen(t, c, k.Queue(job))
		for _, p := range live {
			n += llen(t, c, k.InProgress(job, p.ID))
		}
		return n == 0, nil
	})
	// Consistent again: lock 0, every lock_info field 0.
	lock, _ := redis.Int64(c.Do("GET", k.Lock(job)))
	info, _ := redis.Int64Map(c.Do("HGETALL", k.LockInfo(job)))
	var sum int64
	for _, v := range info {
		sum += v
	}
	if lock != 0 || sum != 0 {
		t.Errorf("after draining: lock %d, lock_info %v", lock, info)
	}
	if _, ok := info["ffffffffffffffffffffffff"]; ok {
		t.Error("the stale lock_info field survived the repair")
	}
}
