package reaper

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// The screen plans from the snapshot, the command line from Redis: on the
// same state both plans must say the same.
func TestSnapshotPlansAgreeWithRedisPlans(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	ctx := context.Background()
	k := redisq.NewKeys("work")
	writeRequeueState(t, c, k)
	rlState(t, c, k)
	redistest.Do(t, c, "SET", k.Paused("a:b"), "1")

	cl := redisq.NewClient(redisq.OneConn(c), "work", requeueDeadAfter)
	snap, err := cl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	orph, err := cl.ScanOrphans(ctx, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap.Orphans = orph.Orphans

	lists := inProgressKeys(k, deadPoolID, gonePoolID)
	fromSnap, err := NewRequeuePlan(snap, lists)
	if err != nil {
		t.Fatalf("snapshot plan: %v", err)
	}
	fromRedis, err := onConn(c, k, 0).PlanRequeue(ctx, lists, requeueDeadAfter)
	if err != nil {
		t.Fatalf("redis plan: %v", err)
	}
	if !fromSnap.Lists[1].HeartbeatUnread {
		t.Error("orphan's heartbeat not marked unread")
	}
	if !fromSnap.Lists[0].Paused {
		t.Error("the paused job type is not marked paused")
	}
	for i := range fromSnap.Lists {
		a, b := fromSnap.Lists[i], fromRedis.Lists[i]
		a.HeartbeatUnread, a.HeartbeatMissing, b.HeartbeatMissing = false, false, false
		if !reflect.DeepEqual(a, b) {
			t.Errorf("list %d:\nsnapshot %+v\n   redis %+v", i, a, b)
		}
	}

	jobs := []string{"mail:send", "a:b"}
	lsnap, err := NewLockRepairPlan(snap, jobs)
	if err != nil {
		t.Fatalf("snapshot plan: %v", err)
	}
	lredis, err := onConn(c, k, 0).PlanRepairLocks(ctx, jobs)
	if err != nil {
		t.Fatalf("redis plan: %v", err)
	}
	if !reflect.DeepEqual(lsnap, lredis) {
		t.Errorf("lock plans differ:\nsnapshot %+v\n   redis %+v", lsnap, lredis)
	}

	// Refusals.
	if _, err := NewRequeuePlan(snap, inProgressKeys(k, livePoolID)); !errors.Is(err, ErrPoolAlive) {
		t.Errorf("live pool: %v", err)
	}
	if _, err := NewRequeuePlan(snap, []string{k.InProgress("a:b", "nobody")}); !errors.Is(err, ErrNoSuchList) {
		t.Errorf("unknown list: %v", err)
	}
	if _, err := NewRequeuePlan(snap, []string{"elsewhere:jobs:a:p:inprogress"}); !errors.Is(err, ErrNotInProgressKey) {
		t.Errorf("other namespace: %v", err)
	}
	if _, err := NewLockRepairPlan(snap, []string{"nosuchjob"}); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("unknown job: %v", err)
	}

	// The Repairer executes them on a connection of its own.
	r := NewReaper(srv.Pool(), "work", 2)
	res, err := r.Requeue(ctx, fromSnap, nil)
	if err != nil || res.TotalMoved() != 9 {
		t.Fatalf("requeue: moved %d, %v", res.TotalMoved(), err)
	}
	if _, err := r.RepairLocks(ctx, lsnap); err != nil {
		t.Fatalf("repair: %v", err)
	}
	if v, _ := redis.Int(c.Do("GET", k.Lock("mail:send"))); v != 3 {
		t.Errorf("mail:send lock = %d, want 3", v)
	}
}

func TestInProgressLists(t *testing.T) {
	p := model.Pool{ID: "p1", InProgress: map[string]int64{"b": 2, "a:x": 1, "none": 0}}
	got := InProgressLists("work", p)
	want := []string{"work:jobs:a:x:p1:inprogress", "work:jobs:b:p1:inprogress"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := InProgressLists("work", model.Pool{ID: "p2"}); got != nil {
		t.Errorf("no lists: %v", got)
	}
}
