package reaper

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

const (
	deadPoolID       = "dead00000000000000000000"
	livePoolID       = "live00000000000000000000"
	gonePoolID       = "gone00000000000000000000"
	requeueDeadAfter = 10 * time.Second
)

// writeRequeueState writes a namespace with a live pool, a dead pool still in the set
// (stale heartbeat) and an orphan (a pool gone from the set, no heartbeat),
// all with jobs of "a:b" (a job name with a colon) in progress.
//
//	live: 2 jobs, lock_info 2
//	dead: 5 jobs, lock_info 5
//	gone: 4 jobs, lock_info 1 (its other locks were released already)
//	lock = 8
func writeRequeueState(t *testing.T, c redis.Conn, k redisq.Keys) {
	t.Helper()
	now := redistest.Time(t, c).Unix()
	job := "a:b"
	redistest.Do(t, c, "SADD", k.WorkerPools(), livePoolID, deadPoolID)
	redistest.Do(t, c, "HSET", k.Heartbeat(livePoolID), "heartbeat_at", now, "job_names", job)
	redistest.Do(t, c, "HSET", k.Heartbeat(deadPoolID), "heartbeat_at", now-60, "job_names", job)
	fill := func(pool string, n int) {
		for i := 0; i < n; i++ {
			redistest.Do(t, c, "LPUSH", k.InProgress(job, pool), fmt.Sprintf(`{"name":"a:b","id":"%s-%d"}`, pool[:4], i))
		}
	}
	fill(livePoolID, 2)
	fill(deadPoolID, 5)
	fill(gonePoolID, 4)
	redistest.Do(t, c, "LPUSH", k.Queue(job), `{"name":"a:b","id":"queued"}`)
	redistest.Do(t, c, "SET", k.Lock(job), 8)
	redistest.Do(t, c, "HSET", k.LockInfo(job), livePoolID, 2, deadPoolID, 5, gonePoolID, 1)
}

// inProgressKeys is the in-progress list of "a:b" of each pool.
func inProgressKeys(k redisq.Keys, pools ...string) []string {
	var out []string
	for _, p := range pools {
		out = append(out, k.InProgress("a:b", p))
	}
	return out
}

func TestRequeueMovesJobsAndReleasesLocks(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	writeRequeueState(t, c, k)
	ctx := context.Background()

	// What upstream's reaper would leave in the queue: RPOPLPUSH one by one.
	ref := redisq.NewKeys("ref")
	writeRequeueState(t, c, ref)
	for _, p := range []string{deadPoolID, gonePoolID} {
		for {
			if v, _ := c.Do("RPOPLPUSH", ref.InProgress("a:b", p), ref.Queue("a:b")); v == nil {
				break
			}
		}
	}
	wantQueue, _ := redis.Strings(c.Do("LRANGE", ref.Queue("a:b"), 0, -1))

	plan, err := onConn(c, k, 0).PlanRequeue(ctx, inProgressKeys(k, deadPoolID, gonePoolID, deadPoolID), requeueDeadAfter)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if len(plan.Lists) != 2 {
		t.Fatalf("plan has %d lists, want 2 (duplicates count once)", len(plan.Lists))
	}
	d, g := plan.Lists[0], plan.Lists[1]
	if d.Jobs != 5 || !d.PoolInSet || d.LockBefore != 8 || d.LockAfter != 3 || d.LockInfoBefore != 5 || d.LockInfoAfter != 0 || d.JobName != "a:b" {
		t.Errorf("dead pool's list plan: %+v", d)
	}
	if g.Jobs != 4 || g.PoolInSet || !g.HeartbeatMissing || g.LockBefore != 3 || g.LockAfter != 2 || g.LockInfoBefore != 1 || g.LockInfoAfter != 0 {
		t.Errorf("orphan's plan: %+v", g)
	}

	redistest.Do(t, c, "SCRIPT", "LOAD", luaRequeue)
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	var calls []int64
	res, err := onConn(c, k, 2).Requeue(ctx, plan, func(moved, total int64) {
		if total != 9 {
			t.Errorf("progress total %d, want 9", total)
		}
		calls = append(calls, moved)
	})
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if res.TotalMoved() != 9 {
		t.Errorf("moved %d, want 9", res.TotalMoved())
	}
	// 5 jobs in batches of 2: 3 calls; 4 jobs: 2 calls.
	if want := []int64{2, 4, 5, 7, 9}; !reflect.DeepEqual(calls, want) {
		t.Errorf("progress %v, want %v", calls, want)
	}
	info, _ := redis.String(c.Do("INFO", "commandstats"))
	if !strings.Contains(info, "cmdstat_evalsha:calls=5,") {
		t.Errorf("want 5 EVALSHA calls (one per batch); commandstats:\n%s", info)
	}
	gotQueue, _ := redis.Strings(c.Do("LRANGE", k.Queue("a:b"), 0, -1))
	if !reflect.DeepEqual(gotQueue, wantQueue) {
		t.Errorf("queue:\n got %q\nwant %q (upstream's order)", gotQueue, wantQueue)
	}
	for _, p := range []string{deadPoolID, gonePoolID} {
		if n, _ := redis.Int(c.Do("LLEN", k.InProgress("a:b", p))); n != 0 {
			t.Errorf("%s still holds %d jobs", p, n)
		}
	}
	lock, _ := redis.Int(c.Do("GET", k.Lock("a:b")))
	infoMap, _ := redis.Int64Map(c.Do("HGETALL", k.LockInfo("a:b")))
	if lock != 2 {
		t.Errorf("lock = %d, want 2 (the live pool's)", lock)
	}
	if want := map[string]int64{livePoolID: 2, deadPoolID: 0, gonePoolID: 0}; !reflect.DeepEqual(infoMap, want) {
		t.Errorf("lock_info = %v, want %v", infoMap, want)
	}
	if n, _ := redis.Int(c.Do("LLEN", k.InProgress("a:b", livePoolID))); n != 2 {
		t.Errorf("live pool's list touched: %d jobs", n)
	}
	if r := res.Lists[0]; r.LockAfter != 3 || r.LockInfoAfter != 0 || r.Remaining != 0 {
		t.Errorf("result of the dead pool's list: %+v", r)
	}
}

func TestRequeueLockNeverBelowZero(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	ctx := context.Background()
	key := k.InProgress("j", gonePoolID)
	redistest.Do(t, c, "RPUSH", key, "1", "2", "3")
	redistest.Do(t, c, "SET", k.Lock("j"), 1)
	redistest.Do(t, c, "HSET", k.LockInfo("j"), gonePoolID, 3)
	// No lock at all for another job: none is created.
	key2 := k.InProgress("n", gonePoolID)
	redistest.Do(t, c, "RPUSH", key2, "1")
	redistest.Do(t, c, "HSET", k.LockInfo("n"), gonePoolID, -2)

	plan, err := onConn(c, k, 0).PlanRequeue(ctx, []string{key, key2}, requeueDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Lists[0].LockAfter != 0 || plan.Lists[0].LockInfoAfter != 0 || plan.Lists[1].LockInfoAfter != -2 {
		t.Errorf("plan: %+v", plan.Lists)
	}
	if _, err := onConn(c, k, 100).Requeue(ctx, plan, nil); err != nil {
		t.Fatal(err)
	}
	if v, _ := redis.Int(c.Do("GET", k.Lock("j"))); v != 0 {
		t.Errorf("lock = %d, want 0", v)
	}
	if v, _ := redis.Int(c.Do("HGET", k.LockInfo("j"), gonePoolID)); v != 0 {
		t.Errorf("lock_info = %d, want 0", v)
	}
	if n, _ := redis.Int(c.Do("EXISTS", k.Lock("n"))); n != 0 {
		t.Error("a lock was created")
	}
	if v, _ := redis.Int(c.Do("HGET", k.LockInfo("n"), gonePoolID)); v != -2 {
		t.Errorf("a negative lock_info was changed to %d", v)
	}
	if n, _ := redis.Int(c.Do("LLEN", k.Queue("n"))); n != 1 {
		t.Errorf("queue n has %d jobs, want 1", n)
	}
}

func TestRequeueRefusals(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	ctx := context.Background()
	writeRequeueState(t, c, k)
	redistest.Do(t, c, "SET", k.InProgress("str", gonePoolID), "x")
	redistest.Do(t, c, "RPUSH", k.InProgress("badq", gonePoolID), "x")
	redistest.Do(t, c, "SET", k.Queue("badq"), "x")
	redistest.Do(t, c, "RPUSH", k.InProgress("badlock", gonePoolID), "x")
	redistest.Do(t, c, "SET", k.Lock("badlock"), "many")
	redistest.Do(t, c, "RPUSH", k.InProgress("fresh", "notinset"), "x")
	redistest.Do(t, c, "HSET", k.Heartbeat("notinset"), "heartbeat_at", redistest.Time(t, c).Unix())
	redistest.Do(t, c, "RPUSH", k.InProgress("garbled", "g"), "x")
	redistest.Do(t, c, "HSET", k.Heartbeat("g"), "heartbeat_at", "soon")
	before := redistest.Dump(t, c, "*")

	cases := []struct {
		name string
		keys []string
		want error
	}{
		{"live pool", inProgressKeys(k, deadPoolID, livePoolID), ErrPoolAlive},
		{"fresh heartbeat outside the set", []string{k.InProgress("fresh", "notinset")}, ErrPoolAlive},
		{"unreadable heartbeat", []string{k.InProgress("garbled", "g")}, ErrPoolAlive},
		{"other namespace", []string{"other:jobs:a:b:" + gonePoolID + ":inprogress"}, ErrNotInProgressKey},
		{"queue not list", []string{k.Queue("a:b")}, ErrNotInProgressKey},
		{"missing", []string{k.InProgress("a:b", "nobody")}, ErrNoSuchList},
		{"string", []string{k.InProgress("str", gonePoolID)}, ErrWrongType},
		{"queue string", []string{k.InProgress("badq", gonePoolID)}, ErrWrongType},
		{"lock not a number", []string{k.InProgress("badlock", gonePoolID)}, ErrBadValue},
		{"none", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := onConn(c, k, 0).PlanRequeue(ctx, tc.keys, requeueDeadAfter)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Error("a refused plan changed Redis")
	}

	// The script refuses on its own too: the pool beat again after the plan.
	plan, err := onConn(c, k, 0).PlanRequeue(ctx, inProgressKeys(k, deadPoolID, gonePoolID), requeueDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	redistest.Do(t, c, "HSET", k.Heartbeat(deadPoolID), "heartbeat_at", redistest.Time(t, c))
	res, err := onConn(c, k, 3).Requeue(ctx, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Lists[0]; r.Moved != 0 || r.Skipped == "" || r.Remaining != 5 {
		t.Errorf("pool alive again: %+v", r)
	}
	if r := res.Lists[1]; r.Moved != 4 || r.Skipped != "" {
		t.Errorf("orphan next to it: %+v", r)
	}
	if n, _ := redis.Int(c.Do("LLEN", k.InProgress("a:b", deadPoolID))); n != 5 {
		t.Errorf("list of the pool alive again: %d jobs, want 5", n)
	}

	// A wrong type that appears between plan and execute: the script checks
	// before writing.
	redistest.Do(t, c, "RPUSH", k.InProgress("late", gonePoolID), "x")
	plan, err = onConn(c, k, 0).PlanRequeue(ctx, []string{k.InProgress("late", gonePoolID)}, requeueDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	redistest.Do(t, c, "HSET", k.Lock("late"), "f", "v")
	before = redistest.Dump(t, c, "*")
	if _, err := onConn(c, k, 3).Requeue(ctx, plan, nil); !errors.Is(err, ErrWrongType) {
		t.Fatalf("err = %v, want ErrWrongType", err)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Error("a refused script changed Redis")
	}

	// Read-only: refused before anything is sent.
	redistest.Do(t, c, "RPUSH", k.InProgress("ro", gonePoolID), "x")
	plan, err = onConn(redisq.ReadOnlyConn(c), k, 0).PlanRequeue(ctx, []string{k.InProgress("ro", gonePoolID)}, requeueDeadAfter)
	if err != nil {
		t.Fatalf("plan on a read-only connection: %v", err)
	}
	if _, err := onConn(redisq.ReadOnlyConn(c), k, 3).Requeue(ctx, plan, nil); !errors.Is(err, redisq.ErrReadOnly) {
		t.Fatalf("execute read-only: err = %v", err)
	}
}

// An interrupted requeue, run again from a new plan, ends where an
// uninterrupted one ends.
func TestRequeueInterruptedThenRerun(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	ctx := context.Background()
	a, b := redisq.NewKeys("a"), redisq.NewKeys("b")
	writeRequeueState(t, c, a)
	writeRequeueState(t, c, b)
	// Clocks: both states were written within the same second or two.

	plan, err := onConn(c, a, 0).PlanRequeue(ctx, inProgressKeys(a, deadPoolID, gonePoolID), requeueDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := onConn(c, a, 2).Requeue(ctx, plan, nil); err != nil {
		t.Fatal(err)
	}

	cctx, cancel := context.WithCancel(ctx)
	plan, err = onConn(c, b, 0).PlanRequeue(ctx, inProgressKeys(b, deadPoolID, gonePoolID), requeueDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	res, err := onConn(c, b, 2).Requeue(cctx, plan, func(moved, _ int64) {
		if moved >= 4 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || res.TotalMoved() != 4 {
		t.Fatalf("interrupted: moved %d, err %v", res.TotalMoved(), err)
	}
	// Halfway: lock and lock_info agree with what moved.
	if v, _ := redis.Int(c.Do("HGET", b.LockInfo("a:b"), deadPoolID)); v != 1 {
		t.Errorf("halfway lock_info = %d, want 1", v)
	}
	if v, _ := redis.Int(c.Do("GET", b.Lock("a:b"))); v != 4 {
		t.Errorf("halfway lock = %d, want 4", v)
	}
	plan, err = onConn(c, b, 0).PlanRequeue(ctx, inProgressKeys(b, deadPoolID, gonePoolID), requeueDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	if plan.TotalJobs() != 5 {
		t.Errorf("rerun plans %d jobs, want 5", plan.TotalJobs())
	}
	if _, err := onConn(c, b, 2).Requeue(ctx, plan, nil); err != nil {
		t.Fatal(err)
	}
	strip := func(m map[string]string, prefix string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			if strings.HasPrefix(k, prefix) {
				out[strings.TrimPrefix(k, prefix)] = v
			}
		}
		return out
	}
	dump := redistest.Dump(t, c, "*")
	da, db := strip(dump, "a:"), strip(dump, "b:")
	delete(da, "worker_pools:"+livePoolID) // heartbeat times may differ by a second
	delete(db, "worker_pools:"+livePoolID)
	delete(da, "worker_pools:"+deadPoolID)
	delete(db, "worker_pools:"+deadPoolID)
	if !reflect.DeepEqual(da, db) {
		t.Errorf("interrupted and rerun differs from one run:\n%v\n%v", da, db)
	}
}

// Two sessions requeueing the same lists at once: every job moves exactly
// once and every lock is released exactly once.
func TestRequeueConcurrentSessions(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	ctx := context.Background()
	k := redisq.NewKeys("work")
	writeRequeueState(t, c, k)
	lists := inProgressKeys(k, deadPoolID, gonePoolID)
	plan, err := onConn(c, k, 0).PlanRequeue(ctx, lists, requeueDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	pool := srv.Pool()
	errs := make(chan error, 2)
	moved := make(chan int64, 2)
	for i := 0; i < 2; i++ {
		go func() {
			conn := pool.Get()
			defer conn.Close()
			res, err := onConn(conn, k, 1).Requeue(ctx, plan, nil)
			moved <- res.TotalMoved()
			errs <- err
		}()
	}
	var total int64
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		total += <-moved
	}
	if total != 9 {
		t.Errorf("moved %d jobs in all, want 9", total)
	}
	if n, _ := redis.Int(c.Do("LLEN", k.Queue("a:b"))); n != 10 {
		t.Errorf("queue has %d jobs, want 10", n)
	}
	if v, _ := redis.Int(c.Do("GET", k.Lock("a:b"))); v != 2 {
		t.Errorf("lock = %d, want 2", v)
	}
}

// A list missing among several (emptied by an interrupted run) is left out
// and named in the plan; alone it is refused.
func TestRequeueMissingListAmongSeveral(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	ctx := context.Background()
	k := redisq.NewKeys("work")
	writeRequeueState(t, c, k)
	missing := k.InProgress("a:b", "emptied")
	plan, err := onConn(c, k, 0).PlanRequeue(ctx, []string{missing, k.InProgress("a:b", gonePoolID)}, requeueDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Lists) != 1 || !reflect.DeepEqual(plan.Missing, []string{missing}) {
		t.Fatalf("plan: lists %+v, missing %v", plan.Lists, plan.Missing)
	}
	var b strings.Builder
	RenderRequeuePlan(&b, plan)
	if !strings.Contains(b.String(), missing+": no such list") {
		t.Errorf("plan does not name the missing list:\n%s", b.String())
	}
	if _, err := onConn(c, k, 0).PlanRequeue(ctx, []string{missing}, requeueDeadAfter); !errors.Is(err, ErrNoSuchList) {
		t.Errorf("alone: %v", err)
	}
}

// onConn is a Reaper of the namespace of k on the one connection c.
func onConn(c redis.Conn, k redisq.Keys, batch int) *Reaper {
	return NewReaper(redisq.OneConn(c), k.Prefix(), batch)
}

// A requeue into a paused job type says so in its plan: the jobs go back
// to a queue no worker takes from until the type is unpaused.
func TestRequeuePlanSaysPaused(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	writeRequeueState(t, c, k)
	keys := inProgressKeys(k, deadPoolID)
	plan, err := onConn(c, k, 0).PlanRequeue(context.Background(), keys, requeueDeadAfter)
	if err != nil || plan.Lists[0].Paused || strings.Contains(RequeuePlanText(plan, 0), "paused") {
		t.Fatalf("not paused: %+v, %v", plan.Lists, err)
	}
	redistest.Do(t, c, "SET", k.Paused("a:b"), "1")
	plan, err = onConn(c, k, 0).PlanRequeue(context.Background(), keys, requeueDeadAfter)
	if err != nil || !plan.Lists[0].Paused {
		t.Fatalf("paused: %+v, %v", plan.Lists, err)
	}
	if text := RequeuePlanText(plan, 0); !strings.Contains(text, "a:b is paused: these jobs wait in its queue until it is unpaused") {
		t.Errorf("plan does not say the type is paused:\n%s", text)
	}
}
