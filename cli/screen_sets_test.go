package cli

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// The client is the Jobs view's reader as it is.
var _ tui.JobSetReader = (*redisq.Client)(nil)

// TestScreenJobSetsAdapters runs the Jobs view's adapters on a real
// redis-server: a page and the set sizes, a summary scan step by step to
// its end, and a requeue and a delete of jobs addressed as the view
// addresses them (id and score), which reach their queue or leave the set.
func TestScreenJobSetsAdapters(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	now := time.Now().Unix()
	pool := "aaaaaaaaaaaaaaaaaaaaaaaa"
	srv.Do("SADD", k.WorkerPools(), pool)
	srv.Do("HSET", k.Heartbeat(pool), "heartbeat_at", now, "started_at", now, "job_names", "send_email",
		"concurrency", 1, "worker_ids", "w1", "host", "h", "pid", 1)
	srv.Do("SADD", k.KnownJobs(), "send_email")
	dead := redisq.SetKey(k, model.SetDead)
	for i := range 25 {
		srv.Do("ZADD", dead, now-int64(i), fmt.Sprintf(`{"name":"send_email","id":"d%02d","t":1,"args":{"n":12345678901234567},"fails":1,"err":"boom %d","failed_at":1}`, i, i))
	}
	srv.Do("ZADD", dead, now-100, "not json")
	srv.Do("ZADD", redisq.SetKey(k, model.SetRetry), now+60, `{"name":"send_email","id":"r1","t":1,"args":{}}`)

	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	client := redisq.NewDialerClient(d, "work", 0)
	defer client.Close()
	ctx := context.Background()

	var reader tui.JobSetReader = client
	page, err := reader.SetPage(ctx, model.SetDead, redisq.SetFilter{}, redisq.PageOptions{Limit: 20}, redisq.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 26 || len(page.Jobs) != 20 || page.Jobs[0].Job == nil || page.Jobs[0].Job.ID != "d00" {
		t.Fatalf("first page: total %d, %d jobs", page.Total, len(page.Jobs))
	}
	counts, err := reader.SetCounts(ctx)
	if err != nil || counts != (redisq.SetCounts{Retry: 1, Dead: 26}) {
		t.Fatalf("counts %+v, %v", counts, err)
	}

	scanner := ScreenSetScanner(d.Dial, "work")
	scan, err := scanner.StartSetScan(ctx, model.SetDead, redisq.SetFilter{})
	if err != nil {
		t.Fatal(err)
	}
	sum := model.NewSetSummary(model.SetDead)
	for steps := 0; ; steps++ {
		if steps > 100 {
			t.Fatal("summary scan does not end")
		}
		jobs, prog, err := scan.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, sj := range jobs {
			sum.Add(sj)
		}
		if prog.Done {
			if prog.Size != 26 || prog.Seen != 26 {
				t.Errorf("progress %+v", prog)
			}
			break
		}
	}
	if err := scan.Close(); err != nil {
		t.Fatal(err)
	}
	if sum.Members != 26 || sum.NotJobs != 1 || sum.ByName["send_email"] != 25 {
		t.Fatalf("summary %+v", sum)
	}

	wp := d.Pool()
	defer wp.Close()
	actor := ScreenJobs(wp, "work", 0)
	target := func(jobs ...model.SetJob) reaper.JobsTarget {
		t := reaper.JobsTarget{Set: model.SetDead}
		for _, sj := range jobs {
			t.Refs = append(t.Refs, reaper.JobRef{ID: sj.Job.ID, Score: sj.ScoreText})
		}
		return t
	}
	plan, err := actor.PlanJobs(ctx, reaper.JobsRequeue, target(page.Jobs[0], page.Jobs[1]))
	if err != nil || plan.Total != 2 {
		t.Fatalf("requeue plan: %d jobs, %v", plan.Total, err)
	}
	res, err := actor.ExecuteJobs(ctx, plan, nil)
	if err != nil || res.Done != 2 {
		t.Fatalf("requeue: %+v, %v", res, err)
	}
	c := srv.Dial()
	defer c.Close()
	q, err := redis.Strings(c.Do("LRANGE", k.Queue("send_email"), 0, -1))
	if err != nil || len(q) != 2 {
		t.Fatalf("queue %q, %v", q, err)
	}
	for _, j := range q {
		if j2, problem := model.ParseJobFields([]byte(j)); problem != "" || j2.LastErr != "" || string(j2.Args) != `{"n":12345678901234567}` {
			t.Errorf("requeued job %s", j)
		}
	}
	plan, err = actor.PlanJobs(ctx, reaper.JobsDelete, target(page.Jobs[2]))
	if err != nil {
		t.Fatal(err)
	}
	if res, err = actor.ExecuteJobs(ctx, plan, nil); err != nil || res.Done != 1 {
		t.Fatalf("delete: %+v, %v", res, err)
	}
	if n, err := redis.Int(c.Do("ZCARD", dead)); err != nil || n != 23 {
		t.Fatalf("dead after requeue 2 and delete 1: %d, %v", n, err)
	}
	if n, err := redis.Int(c.Do("ZSCORE", dead, page.Jobs[2].Raw)); !errors.Is(err, redis.ErrNil) {
		t.Fatalf("deleted job still there (%d, %v)", n, err)
	}
}
