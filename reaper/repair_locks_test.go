package reaper

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// rlState: job "mail:send" with pools p1, p2, p3 in the set holding 2, 0
// and 1 jobs, an orphan p9 holding 3, a lock of 10 at max_concurrency 10,
// and a lock_info that has drifted every way.
func rlState(t *testing.T, c redis.Conn, k redisq.Keys) {
	t.Helper()
	job := "mail:send"
	redistest.Do(t, c, "SADD", k.WorkerPools(), "p1", "p2", "p3")
	redistest.Do(t, c, "SADD", k.KnownJobs(), job, "idle")
	redistest.Do(t, c, "RPUSH", k.InProgress(job, "p1"), "j1", "j2")
	redistest.Do(t, c, "RPUSH", k.InProgress(job, "p3"), "j3")
	redistest.Do(t, c, "RPUSH", k.InProgress(job, "p9"), "j4", "j5", "j6")
	redistest.Do(t, c, "RPUSH", k.Queue(job), "q1", "q2")
	redistest.Do(t, c, "SET", k.Lock(job), 10)
	redistest.Do(t, c, "SET", k.MaxConcurrency(job), 10)
	redistest.Do(t, c, "HSET", k.LockInfo(job), "p1", 5, "p2", 0, "p3", 1, "p9", 4, "px", 1)
}

func TestRepairLocksResets(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	ctx := context.Background()
	rlState(t, c, k)

	plan, err := onConn(c, k, 0).PlanRepairLocks(ctx, []string{"mail:send", "idle", "mail:send"})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if len(plan.Jobs) != 2 {
		t.Fatalf("plan has %d job types, want 2", len(plan.Jobs))
	}
	jp := plan.Jobs[0]
	wantInfo := map[string]int64{"p1": 2, "p3": 1}
	if jp.LockBefore != 10 || jp.LockAfter != 3 || !reflect.DeepEqual(jp.LockInfoAfter, wantInfo) ||
		jp.LockInfoBefore["p9"] != "4" || jp.MaxConcurrency != 10 || jp.Queued != 2 || !jp.Changes() {
		t.Errorf("plan: %+v", jp)
	}
	if idle := plan.Jobs[1]; idle.Changes() || idle.LockPresent || idle.LockAfter != 0 {
		t.Errorf("idle job type's plan: %+v", idle)
	}
	if got := jp.LockInfoFields(); !reflect.DeepEqual(got, []string{"p1", "p2", "p3", "p9", "px"}) {
		t.Errorf("fields %v", got)
	}

	res, err := onConn(c, k, 0).RepairLocks(ctx, plan)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if r := res.Jobs[0]; !r.Applied || r.LockAfter != 3 || !reflect.DeepEqual(r.LockInfoAfter, wantInfo) {
		t.Errorf("result: %+v", r)
	}
	lock, _ := redis.Int64(c.Do("GET", k.Lock("mail:send")))
	info, _ := redis.Int64Map(c.Do("HGETALL", k.LockInfo("mail:send")))
	if lock != 3 || !reflect.DeepEqual(info, wantInfo) {
		t.Errorf("after: lock %d, lock_info %v; want 3, %v", lock, info, wantInfo)
	}
	if n, _ := redis.Int(c.Do("EXISTS", k.Lock("idle"), k.LockInfo("idle"))); n != 0 {
		t.Errorf("idle job type got %d keys", n)
	}
	// Lists and queues untouched.
	if n, _ := redis.Int(c.Do("LLEN", k.InProgress("mail:send", "p9"))); n != 3 {
		t.Errorf("orphan list has %d jobs", n)
	}

	// Again: nothing to change, and running it changes nothing.
	before := redistest.Dump(t, c, "*")
	plan, err = onConn(c, k, 0).PlanRepairLocks(ctx, []string{"mail:send"})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Changes() {
		t.Errorf("second plan still changes: %+v", plan.Jobs[0])
	}
	if _, err := onConn(c, k, 0).RepairLocks(ctx, plan); err != nil {
		t.Fatal(err)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Error("a repeat repair changed Redis")
	}
}

func TestRepairLocksRefusesWhenSetChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change []interface{}
	}{
		{"pool added", []interface{}{"SADD", "work:worker_pools", "p4"}},
		{"pool removed", []interface{}{"SREM", "work:worker_pools", "p3"}},
		{"pool swapped", []interface{}{"MULTI"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			c := srv.Dial()
			k := redisq.NewKeys("work")
			ctx := context.Background()
			rlState(t, c, k)
			plan, err := onConn(c, k, 0).PlanRepairLocks(ctx, []string{"mail:send"})
			if err != nil {
				t.Fatal(err)
			}
			if tc.change[0] == "MULTI" {
				redistest.Do(t, c, "SREM", k.WorkerPools(), "p2")
				redistest.Do(t, c, "SADD", k.WorkerPools(), "p9")
			} else {
				redistest.Do(t, c, tc.change[0].(string), tc.change[1:]...)
			}
			before := redistest.Dump(t, c, "*")
			res, err := onConn(c, k, 0).RepairLocks(ctx, plan)
			if !errors.Is(err, ErrSetChanged) || res.Jobs[0].Applied {
				t.Fatalf("err = %v, result %+v; want ErrSetChanged", err, res.Jobs[0])
			}
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Error("a refused repair changed Redis")
			}
		})
	}
}

func TestRepairLocksBadInput(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	ctx := context.Background()
	rlState(t, c, k)
	redistest.Do(t, c, "HSET", k.Lock("hashlock"), "a", "b")
	redistest.Do(t, c, "SET", k.InProgress("strlist", "p1"), "x")
	redistest.Do(t, c, "SET", k.Lock("garbled"), "lots")
	redistest.Do(t, c, "RPUSH", k.InProgress("garbled", "p2"), "j")
	before := redistest.Dump(t, c, "*")
	for _, tc := range []struct {
		name string
		jobs []string
		want error
	}{
		{"unknown", []string{"mail:send", "nosuchjob"}, ErrUnknownJob},
		{"lock is a hash", []string{"hashlock"}, ErrWrongType},
		{"list is a string", []string{"strlist"}, ErrWrongType},
		{"empty", []string{""}, nil},
		{"none", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := onConn(c, k, 0).PlanRepairLocks(ctx, tc.jobs)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Error("a refused plan changed Redis")
	}

	// A lock that is not a number is repaired.
	plan, err := onConn(c, k, 0).PlanRepairLocks(ctx, []string{"garbled"})
	if err != nil {
		t.Fatal(err)
	}
	if jp := plan.Jobs[0]; jp.LockBeforeRaw != "lots" || jp.LockAfter != 1 || !jp.Changes() {
		t.Errorf("plan: %+v", jp)
	}
	// A wrong type that appears after the plan: refused inside the script.
	redistest.Do(t, c, "SET", k.InProgress("garbled", "p3"), "x")
	before = redistest.Dump(t, c, "*")
	if _, err := onConn(c, k, 0).RepairLocks(ctx, plan); !errors.Is(err, ErrWrongType) {
		t.Fatalf("err = %v, want ErrWrongType", err)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Error("a refused script changed Redis")
	}
	redistest.Do(t, c, "DEL", k.InProgress("garbled", "p3"))
	if _, err := onConn(c, k, 0).RepairLocks(ctx, plan); err != nil {
		t.Fatal(err)
	}
	if v, _ := redis.String(c.Do("GET", k.Lock("garbled"))); v != "1" {
		t.Errorf("lock = %q, want 1", v)
	}

	// Read-only connections plan but never execute.
	ro := redisq.ReadOnlyConn(c)
	plan, err = onConn(ro, k, 0).PlanRepairLocks(ctx, []string{"mail:send"})
	if err != nil {
		t.Fatalf("plan read-only: %v", err)
	}
	if _, err := onConn(ro, k, 0).RepairLocks(ctx, plan); !errors.Is(err, redisq.ErrReadOnly) {
		t.Fatalf("execute read-only: %v", err)
	}
}
