package reaper

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// A requeue's script reads its members' scores with one ZMSCORE a step,
// and where Redis refuses it (before 6.2, or an ACL without it) one ZSCORE
// a member: the same members moved, gone and rescored either way.
func TestJobsRequeueReadsScoresEitherWay(t *testing.T) {
	srv := redistest.Start(t)
	admin := srv.Dial()
	defer admin.Close()
	redistest.Do(t, admin, "ACL", "SETUSER", "nozmscore", "on", ">pw", "~*", "&*", "+@all", "-zmscore")
	type outcome struct {
		done, gone, rescored int64
		dead                 []string
		queued               int
	}
	run := func(c redis.Conn) (outcome, int64, int64) {
		t.Helper()
		jobsDo(t, admin, "FLUSHALL")
		keys := jobsNS(t, admin, []string{"mail"}, "mail")
		var refs []JobRef
		for i := 0; i < 30; i++ {
			id := fmt.Sprintf("a%02d", i)
			jobsDo(t, admin, "ZADD", "work:dead", 1700000300+i, jobsDead(id, "mail"))
			refs = append(refs, JobRef{ID: id})
		}
		plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, Refs: refs})
		if err != nil || plan.Total != 30 {
			t.Fatalf("plan: %d jobs, %v", plan.Total, err)
		}
		// Between the plan and the run: one job leaves the set, one is
		// scored again.
		jobsDo(t, admin, "ZREM", "work:dead", jobsDead("a03", "mail"))
		jobsDo(t, admin, "ZADD", "work:dead", 1800000000, jobsDead("a05", "mail"))
		jobsDo(t, admin, "CONFIG", "RESETSTAT")
		res, err := NewJobsExecutor("work", 0).Execute(context.Background(), c, plan, nil)
		if err != nil {
			t.Fatalf("execute: %v", err)
		}
		o := outcome{done: res.Done, gone: res.GoneCount, rescored: res.RescoredCount}
		o.dead, _ = redis.Strings(admin.Do("ZRANGE", "work:dead", 0, -1))
		o.queued, _ = redis.Int(admin.Do("LLEN", "work:jobs:mail"))
		calls := redistest.CommandCalls(t, admin)
		return o, calls["zmscore"], calls["zscore"]
	}
	full := srv.Dial()
	defer full.Close()
	got, zm, zs := run(full)
	if zm == 0 || zs != 0 {
		t.Errorf("default user: %d ZMSCORE and %d ZSCORE calls, want ZMSCORE only", zm, zs)
	}
	limited := srv.Dial()
	defer limited.Close()
	redistest.Do(t, limited, "AUTH", "nozmscore", "pw")
	without, _, zs := run(limited)
	if zs != 30 {
		t.Errorf("user without ZMSCORE: %d ZSCORE calls, want one a member (30)", zs)
	}
	want := outcome{done: 28, gone: 1, rescored: 1, dead: []string{jobsDead("a05", "mail")}, queued: 28}
	for name, o := range map[string]outcome{"ZMSCORE": got, "ZSCORE": without} {
		if o.done != want.done || o.gone != want.gone || o.rescored != want.rescored || !slices.Equal(o.dead, want.dead) || o.queued != want.queued {
			t.Errorf("with %s: %+v, want %+v", name, o, want)
		}
	}
}
