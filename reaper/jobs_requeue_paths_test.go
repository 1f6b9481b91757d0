package reaper

import (
	"context"
	"fmt"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// A requeue's script pushes a call's members as they came when every one
// moves onto one queue, and sorts them by queue otherwise (several job
// names, a member gone, a member named twice): either way each queue gets
// its own new jobs, in the members' order, each once, and the set loses
// exactly the members moved.
func TestJobsRequeueCallPaths(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	tests := []struct {
		name  string
		names []string // a job name a member, in the set's order
		gone  int      // a member that leaves the set after the plan (-1: none)
		twice bool     // the call names its first member again
		done  int64
		goneN int64
	}{
		{"one queue, every member moves", []string{"mail", "mail", "mail"}, -1, false, 3, 0},
		{"two queues", []string{"mail", "sms", "mail", "sms", "sms"}, -1, false, 5, 0},
		{"one queue, one gone", []string{"mail", "mail", "mail"}, 1, false, 2, 1},
		{"one queue, named twice", []string{"mail", "mail"}, -1, true, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobsDo(t, c, "FLUSHALL")
			keys := jobsNS(t, c, []string{"mail", "sms"}, "mail,sms")
			var refs []JobRef
			var members []string
			for i, n := range tt.names {
				id := fmt.Sprintf("j%d", i)
				m := jobsDead(id, n)
				members = append(members, m)
				jobsDo(t, c, "ZADD", "work:dead", 1700000300+i, m)
				refs = append(refs, JobRef{ID: id})
			}
			plan, err := PlanJobs(ctx, c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, Refs: refs})
			if err != nil || plan.Total != int64(len(members)) {
				t.Fatalf("plan: %d jobs, %v", plan.Total, err)
			}
			if tt.twice {
				plan.Items = append(plan.Items, plan.Items[0])
			}
			if tt.gone >= 0 {
				jobsDo(t, c, "ZREM", "work:dead", members[tt.gone])
			}
			now, err := redis.Int64s(c.Do("TIME"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := NewJobsExecutor("work", 0).Execute(ctx, c, plan, nil)
			if err != nil || res.Calls != 1 {
				t.Fatalf("execute: %d calls, %v", res.Calls, err)
			}
			if res.Done != tt.done || res.GoneCount != tt.goneN {
				t.Fatalf("done %d, gone %d; want %d, %d", res.Done, res.GoneCount, tt.done, tt.goneN)
			}
			for _, q := range []string{"mail", "sms"} {
				// LPUSH in the members' order: the last pushed is first.
				var want []string
				for i, m := range members {
					if tt.names[i] == q && i != tt.gone {
						want = append([]string{m}, want...)
					}
				}
				got, err := redis.Strings(c.Do("LRANGE", "work:jobs:"+q, 0, -1))
				if err != nil || len(got) != len(want) {
					t.Fatalf("%s: %d jobs %v, want %d", q, len(got), err, len(want))
				}
				for i, g := range got {
					e, err := model.EditForRequeue([]byte(want[i]), true)
					if err != nil {
						t.Fatal(err)
					}
					var tm int64
					if _, err := fmt.Sscanf(g[len(e.Before):], "%d", &tm); err != nil || tm < now[0]-5 || tm > now[0]+5 {
						t.Fatalf("%s: job %d has t %d (%v), Redis's clock %d", q, i, tm, err, now[0])
					}
					if w := fmt.Sprintf("%s%d%s", e.Before, tm, e.After); g != w {
						t.Fatalf("%s: job %d is\n%s, want\n%s", q, i, g, w)
					}
				}
			}
			if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 0 {
				t.Fatalf("dead holds %d members, want none", n)
			}
		})
	}
}
