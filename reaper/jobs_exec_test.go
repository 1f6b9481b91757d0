package reaper

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// The plan checks cheaply what only the execution cuts: a second `t`, also
// one written with an escape, makes a member that cannot be requeued.
func TestJobsRequeueCheckFindsSecondT(t *testing.T) {
	for raw, bad := range map[string]bool{
		`{"name":"mail","t":1,"t":2}`:           true,
		`{"name":"mail","\u0074":1,"t":2}`:      true,
		`{"name":"mail","t":1,"args":{"t":2}}`:  false,
		`{"name":"mail","t":1,"args":"\u0074"}`: false,
		`{"name":"mail","t":1}`:                 false,
	} {
		err := requeueCheck(model.ParseSetJob(model.SetDead, []byte(raw), "1"))
		if (err != nil) != bad {
			t.Errorf("%s: check says %v", raw, err)
		}
		if _, eerr := model.EditForRequeue([]byte(raw), true); (eerr != nil) != bad {
			t.Errorf("%s: edit says %v", raw, eerr)
		}
	}
}

// A member named twice in one call is moved once.
func TestJobsRequeueSameMemberTwiceInOneCall(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	jobsDo(t, c, "ZADD", "work:dead", 1700000300, jobsDead("a1", "mail"))
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "a1"}}})
	if err != nil {
		t.Fatal(err)
	}
	plan.Items = append(plan.Items, plan.Items[0])
	res, err := NewJobsExecutor("work", 0).Execute(context.Background(), c, plan, nil)
	if err != nil || res.Done != 1 || res.GoneCount != 1 || res.Calls != 1 {
		t.Fatalf("done %d, gone %d, calls %d, err %v", res.Done, res.GoneCount, res.Calls, err)
	}
	if n, _ := redis.Int(c.Do("LLEN", "work:jobs:mail")); n != 1 {
		t.Fatalf("queue holds %d jobs, want 1", n)
	}
}

// Jobs of several types in calls of several members: each queue ends as if
// each job had been pushed on its own, oldest first.
func TestJobsRequeueSeveralQueuesInOrder(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail", "bill"}, "mail,bill")
	want := map[string][]string{}
	for i := 0; i < 50; i++ {
		name := []string{"mail", "bill"}[i%3%2]
		id := fmt.Sprintf("j%02d", i)
		jobsDo(t, c, "ZADD", "work:dead", 1700000000+i, jobsDead(id, name))
		want[name] = append([]string{id}, want[name]...) // LPUSH: the newest push first
	}
	plan, res := jobsPlanExec(t, c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true}, 7)
	if plan.Total != 50 || res.Done != 50 || res.Calls != 8 {
		t.Fatalf("plan %d, done %d in %d calls", plan.Total, res.Done, res.Calls)
	}
	for name, ids := range want {
		q, _ := redis.Strings(c.Do("LRANGE", keys.Queue(name), 0, -1))
		if len(q) != len(ids) {
			t.Fatalf("%s holds %d jobs, want %d", name, len(q), len(ids))
		}
		for i, raw := range q {
			if j, _ := model.ParseJobFields([]byte(raw)); j == nil || j.ID != ids[i] {
				t.Fatalf("%s[%d] is %s, want %s", name, i, raw, ids[i])
			}
		}
	}
}

// A queue of the wrong type stops the run before that call writes
// anything, with the error, and no call stays in flight.
func TestJobsRequeueWrongTypeQueueStops(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail", "bill"}, "mail,bill")
	for i := 0; i < 10; i++ {
		name := "mail"
		if i >= 5 {
			name = "bill"
		}
		jobsDo(t, c, "ZADD", "work:dead", 1700000000+i, jobsDead(fmt.Sprintf("w%d", i), name))
	}
	jobsDo(t, c, "SET", keys.Queue("bill"), "not a list")
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewJobsExecutor("work", 5).Execute(context.Background(), c, plan, nil)
	if !errors.Is(err, ErrWrongType) || res.Done != 5 || res.Calls != 2 {
		t.Fatalf("done %d in %d calls, err %v", res.Done, res.Calls, err)
	}
	if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 5 {
		t.Fatalf("dead holds %d, want the 5 bill jobs", n)
	}
	if v, err := redis.String(c.Do("PING")); err != nil || v != "PONG" {
		t.Fatalf("connection after the run: %q %v", v, err)
	}
}
