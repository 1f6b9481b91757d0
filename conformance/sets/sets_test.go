// Package sets_test checks workq-tui's job-set reads and actions against
// the real gocraft/work v0.5.1: the same pages as its Client, the same end
// state as its single retry and delete calls (and arguments kept byte for
// byte, which it does not), unique jobs enqueueable again after a delete,
// and requeued dead jobs run by a live pool.
package sets_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

type pageRow struct {
	ID    string
	Score int64
	Name  string
	Fails int64
	Err   string
}

func TestPagesEqualUpstream(t *testing.T) {
	srv := redistest.Start(t)
	buildState(t, srv)
	c := srv.Dial()
	client := work.NewClient(ns, gcstate.RedisPool(t, srv.Addr()))
	keys := redisq.NewKeys(ns)
	for _, set := range []model.SetName{model.SetRetry, model.SetScheduled, model.SetDead} {
		pages := 0
		for page := uint(1); ; page++ {
			var up []pageRow
			var count int64
			var err error
			switch set {
			case model.SetRetry:
				var js []*work.RetryJob
				js, count, err = client.RetryJobs(page)
				for _, j := range js {
					up = append(up, pageRow{j.ID, j.RetryAt, j.Name, j.Fails, j.LastErr})
				}
			case model.SetScheduled:
				var js []*work.ScheduledJob
				js, count, err = client.ScheduledJobs(page)
				for _, j := range js {
					up = append(up, pageRow{j.ID, j.RunAt, j.Name, j.Fails, j.LastErr})
				}
			case model.SetDead:
				var js []*work.DeadJob
				js, count, err = client.DeadJobs(page)
				for _, j := range js {
					up = append(up, pageRow{j.ID, j.DiedAt, j.Name, j.Fails, j.LastErr})
				}
			}
			if err != nil {
				t.Fatalf("upstream %s page %d: %v", set, page, err)
			}
			// Upstream lists every set oldest first; ours lists dead newest
			// first, so its reverse order is what upstream pages.
			p, err := redisq.ReadSetPage(context.Background(), redisq.ReadOnlyConn(c), keys, set,
				redisq.PageOptions{Offset: int(page-1) * 20, Limit: 20, Reverse: set.NewestFirst()})
			if err != nil {
				t.Fatalf("%s page %d: %v", set, page, err)
			}
			var ours []pageRow
			for _, sj := range p.Jobs {
				if sj.Job == nil || sj.Problem != "" {
					t.Fatalf("%s: member not read cleanly: %q %s", set, sj.Raw, sj.Problem)
				}
				ours = append(ours, pageRow{sj.Job.ID, int64(sj.Score), sj.Job.Name, sj.Job.Fails, sj.Job.LastErr})
			}
			if p.Total != count || fmt.Sprint(ours) != fmt.Sprint(up) {
				t.Fatalf("%s page %d differs:\nupstream %d %v\nours     %d %v", set, page, count, up, p.Total, ours)
			}
			if len(up) == 0 {
				break
			}
			pages++
		}
		if pages < 3 {
			t.Fatalf("%s: only %d pages compared", set, pages)
		}
	}
}

// op is one single-job action, done by upstream on one copy of the state and
// by workq-tui on another.
type op struct {
	name     string
	set      model.SetName
	pick     func(map[string]any) bool
	action   reaper.JobsAction
	upstream func(cl *work.Client, score int64, id string) error
}

func TestSingleActionsReachUpstreamEndState(t *testing.T) {
	srv := redistest.Start(t)
	buildState(t, srv)
	c := srv.Dial()
	unique := func(m map[string]any) bool { return m["unique"] == true }
	plainLater := func(m map[string]any) bool { return m["name"] == "later" && m["unique"] == nil }
	ops := []op{
		{"RetryDeadJob", model.SetDead, named("fail1"), reaper.JobsRequeue, func(cl *work.Client, s int64, id string) error { return cl.RetryDeadJob(s, id) }},
		{"DeleteDeadJob", model.SetDead, named("fail1"), reaper.JobsDelete, func(cl *work.Client, s int64, id string) error { return cl.DeleteDeadJob(s, id) }},
		{"DeleteRetryJob", model.SetRetry, named("fail3"), reaper.JobsDelete, func(cl *work.Client, s int64, id string) error { return cl.DeleteRetryJob(s, id) }},
		{"DeleteScheduledJob", model.SetScheduled, plainLater, reaper.JobsDelete, func(cl *work.Client, s int64, id string) error { return cl.DeleteScheduledJob(s, id) }},
		{"DeleteScheduledJob unique", model.SetScheduled, unique, reaper.JobsDelete, func(cl *work.Client, s int64, id string) error { return cl.DeleteScheduledJob(s, id) }},
	}
	for i, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			up, us := fmt.Sprintf("up%d", i), fmt.Sprintf("us%d", i)
			copyNS(t, c, ns, up)
			copyNS(t, c, ns, us)
			_, score, id := member(t, c, up+":"+string(o.set), o.pick)
			lo := time.Now().Unix()
			if err := o.upstream(work.NewClient(up, gcstate.RedisPool(t, srv.Addr())), score, id); err != nil {
				t.Fatalf("upstream: %v", err)
			}
			keys := redisq.NewKeys(us)
			// No pool runs in this state, so a requeue needs Force.
			plan, err := reaper.PlanJobs(context.Background(), c, keys, o.action, reaper.JobsTarget{
				Set: o.set, Refs: []reaper.JobRef{{ID: id, Score: fmt.Sprint(score)}}, Force: true})
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			res, err := reaper.NewJobsExecutor(us, 0).Execute(context.Background(), c, plan, nil)
			if err != nil || res.Done != 1 {
				t.Fatalf("execute: %+v %v", res, err)
			}
			hi := time.Now().Unix() + 1
			if d := diffStates(endState(t, c, up, lo, hi), endState(t, c, us, lo, hi)); d != "" {
				t.Fatalf("end states differ:\n%s", d)
			}
			if o.name == "DeleteScheduledJob unique" {
				if res.UniqueDeleted != 1 {
					t.Fatalf("unique key not deleted: %+v", res)
				}
				for _, n := range []string{up, us} {
					enq := work.NewEnqueuer(n, gcstate.RedisPool(t, srv.Addr()))
					j, err := enq.EnqueueUniqueIn("later", 60, uniqueArgs)
					if err != nil || j == nil {
						t.Fatalf("%s: EnqueueUniqueIn after delete: %v %v", n, j, err)
					}
				}
				// The original still holds its key: a second copy is refused.
				enq := work.NewEnqueuer(ns, gcstate.RedisPool(t, srv.Addr()))
				if j, err := enq.EnqueueUniqueIn("later", 60, uniqueArgs); err != nil || j != nil {
					t.Fatalf("EnqueueUniqueIn beside the original: %v %v (want refused)", j, err)
				}
			}
		})
	}
}

func TestRequeueKeepsArgumentsByteForByte(t *testing.T) {
	srv := redistest.Start(t)
	buildState(t, srv)
	c := srv.Dial()
	copyNS(t, c, ns, "up")
	raw, score, id := member(t, c, "up:dead", named("exact"))
	if err := work.NewClient("up", gcstate.RedisPool(t, srv.Addr())).RetryDeadJob(score, id); err != nil {
		t.Fatal(err)
	}
	deadJob, _ := model.ParseJobFields([]byte(raw))
	upQueued, _ := redis.String(c.Do("LINDEX", "up:jobs:exact", 0))
	upJob, _ := model.ParseJobFields([]byte(upQueued))
	if string(upJob.Args) == string(deadJob.Args) {
		t.Logf("upstream kept the args this time: %s", upJob.Args)
	}

	keys := redisq.NewKeys(ns)
	for _, set := range []model.SetName{model.SetDead, model.SetScheduled} {
		before := map[string]string{}
		p, err := redisq.FilterSetPage(context.Background(), c, keys, set, redisq.SetFilter{Job: map[model.SetName]string{model.SetDead: "exact", model.SetScheduled: "later"}[set]},
			redisq.PageOptions{Limit: 1000}, redisq.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var refs []reaper.JobRef
		for _, sj := range p.Jobs {
			if strings.Contains(string(sj.Job.Args), "big") {
				before[sj.Job.ID] = string(sj.Job.Args)
				refs = append(refs, reaper.JobRef{ID: sj.Job.ID, Score: sj.ScoreText})
			}
		}
		if len(refs) != exactN {
			t.Fatalf("%s: %d jobs with exact args, want %d", set, len(refs), exactN)
		}
		plan, err := reaper.PlanJobs(context.Background(), c, keys, reaper.JobsRequeue, reaper.JobsTarget{Set: set, Refs: refs, Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reaper.NewJobsExecutor(ns, 2).Execute(context.Background(), c, plan, nil); err != nil {
			t.Fatal(err)
		}
		queue := map[model.SetName]string{model.SetDead: "exact", model.SetScheduled: "later"}[set]
		q, _ := redis.Strings(c.Do("LRANGE", keys.Queue(queue), 0, -1))
		if len(q) != exactN {
			t.Fatalf("%s: queue holds %d", set, len(q))
		}
		for _, raw := range q {
			j, _ := model.ParseJobFields([]byte(raw))
			if before[j.ID] != string(j.Args) || !strings.Contains(string(j.Args), `"list":[]`) || strings.Contains(raw, `\/`) {
				t.Fatalf("%s: args changed: %s, was %s", set, j.Args, before[j.ID])
			}
			if set == model.SetScheduled && !strings.Contains(string(j.Args), "12345678901234567") {
				t.Fatalf("scheduled args lost digits: %s", j.Args)
			}
			if set == model.SetDead && (j.Fails != 0 || j.LastErr != "" || j.FailedAt != 0) {
				t.Fatalf("dead job kept its failure: %s", raw)
			}
		}
	}
}

func TestRequeuedDeadJobsRunOnLivePool(t *testing.T) {
	srv := redistest.Start(t)
	buildState(t, srv)
	c := srv.Dial()
	var mu sync.Mutex
	runs := map[string]int{}
	rp := gcstate.RedisPool(t, srv.Addr())
	wp := work.NewWorkerPool(ctxType{}, 4, ns, rp)
	wp.JobWithOptions("fail1", work.JobOptions{MaxFails: 1}, func(j *work.Job) error {
		mu.Lock()
		runs[j.ID]++
		mu.Unlock()
		return nil
	})
	wp.Start()
	defer wp.Stop()
	keys := redisq.NewKeys(ns)
	gcstate.WaitFor(t, 10*time.Second, "the pool's heartbeat", func() (bool, error) {
		n, err := redis.Int(c.Do("SCARD", keys.WorkerPools()))
		return n == 1, err
	})
	// "exact" has no live pool: without Force a bulk requeue leaves it.
	plan, err := reaper.PlanJobs(context.Background(), c, keys, reaper.JobsRequeue, reaper.JobsTarget{Set: model.SetDead, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Total != failN || plan.ByName["fail1"] != failN || len(plan.Skipped) == 0 {
		t.Fatalf("plan: total %d, by name %v, skipped %v", plan.Total, plan.ByName, plan.Skipped)
	}
	res, err := reaper.NewJobsExecutor(ns, 10).Execute(context.Background(), c, plan, nil)
	if err != nil || res.Done != failN || res.Calls != 5 {
		t.Fatalf("execute: %+v %v", res, err)
	}
	gcstate.WaitFor(t, 30*time.Second, "every requeued job run", func() (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(runs) == failN, nil
	})
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for id, n := range runs {
		if n != 1 {
			t.Fatalf("job %s ran %d times", id, n)
		}
	}
	p, err := redisq.FilterSetPage(context.Background(), c, keys, model.SetDead, redisq.SetFilter{Job: "fail1"}, redisq.PageOptions{}, redisq.ScanOptions{})
	if err != nil || p.Total != 0 {
		t.Fatalf("fail1 jobs still dead: %d %v", p.Total, err)
	}
}

func TestPeriodicDeleteWarns(t *testing.T) {
	srv := redistest.Start(t)
	buildState(t, srv)
	c := srv.Dial()
	_, score, id := member(t, c, ns+":scheduled", named("tick"))
	if !strings.HasPrefix(id, "periodic:") {
		t.Fatalf("periodic job id %q", id)
	}
	plan, err := reaper.PlanJobs(context.Background(), c, redisq.NewKeys(ns), reaper.JobsDelete, reaper.JobsTarget{
		Set: model.SetScheduled, Refs: []reaper.JobRef{{ID: id, Score: fmt.Sprint(score)}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Warnings) != 1 || !strings.Contains(plan.Warnings[0], "periodic") {
		t.Fatalf("warnings %q", plan.Warnings)
	}
	sum, err := redisq.SummarizeSet(context.Background(), c, redisq.NewKeys(ns), model.SetDead, redisq.SetFilter{}, redisq.ScanOptions{Paced: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ByName["fail1"] != failN || sum.ByError["boom <id> after N tries"] != failN+exactN {
		t.Fatalf("summary %+v", sum)
	}
}
