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
)

// TestScreenBulkQueryStops: the screen's actor plans A's target (every
// dead job a query matches) with the command line's bulk plan, and a run
// stopped midway (the screen cancels its context on esc) moves part of the
// jobs, loses and doubles none; run again, it moves the rest.
func TestScreenBulkQueryStops(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "mail", "sms")
	redistest.Do(t, c, "SADD", "work:worker_pools", "live")
	redistest.Do(t, c, "HSET", "work:worker_pools:live", "job_names", "mail,sms", "heartbeat_at", now, "worker_ids", "w1")
	const n = 1200
	for i := range n {
		name, e := "mail", "gateway timeout"
		if i%3 == 0 {
			name = "sms" // not matched by job:mail
		}
		if i%5 == 0 {
			e = "bad request" // not matched by err:timeout
		}
		raw := fmt.Sprintf(`{"name":%q,"id":"j%04d","t":%d,"args":{},"fails":4,"err":%q,"failed_at":%d}`, name, i, now-7200, e, now-3600+int64(i))
		redistest.Do(t, c, "ZADD", "work:dead", now-3600+int64(i), raw)
	}
	want := 0
	for i := range n {
		if i%3 != 0 && i%5 != 0 {
			want++
		}
	}
	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wp := d.Pool()
	defer wp.Close()
	actor := ScreenJobs(wp, "work", 20)
	q, err := model.ParseQuery("job:mail err:timeout", model.QueryClock{Now: time.Unix(now, 0)})
	if err != nil {
		t.Fatal(err)
	}
	target := reaper.JobsTarget{Set: model.SetDead, All: true, Query: q}
	plan, err := actor.PlanJobs(context.Background(), reaper.JobsRequeue, target)
	if err != nil || plan.Total != int64(want) {
		t.Fatalf("plan: %d jobs (want %d), %v", plan.Total, want, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	res, err := actor.ExecuteJobs(ctx, plan, func(done, _ int64) {
		if done >= 100 {
			stop()
		}
	})
	if !errors.Is(err, context.Canceled) || res.Done < 100 || res.Done >= int64(want) {
		t.Fatalf("stopped run: %d done, %v", res.Done, err)
	}
	check := func(queued int) {
		t.Helper()
		ids := map[string]int{}
		for _, key := range []string{"work:jobs:mail"} {
			q, err := redis.Strings(c.Do("LRANGE", key, 0, -1))
			if err != nil {
				t.Fatal(err)
			}
			if len(q) != queued {
				t.Fatalf("%d queued, want %d", len(q), queued)
			}
			for _, raw := range q {
				j, _ := model.ParseJobFields([]byte(raw))
				ids[j.ID]++
			}
		}
		dead, err := redis.Strings(c.Do("ZRANGE", "work:dead", 0, -1))
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range dead {
			j, _ := model.ParseJobFields([]byte(raw))
			ids[j.ID]++
		}
		if len(ids) != n {
			t.Fatalf("%d ids in the queue and the dead set, want %d", len(ids), n)
		}
		for id, k := range ids {
			if k != 1 {
				t.Fatalf("%s is there %d times", id, k)
			}
		}
	}
	check(int(res.Done))
	plan, err = actor.PlanJobs(context.Background(), reaper.JobsRequeue, target)
	if err != nil || plan.Total != int64(want)-res.Done {
		t.Fatalf("plan again: %d jobs (want %d), %v", plan.Total, int64(want)-res.Done, err)
	}
	if res, err = actor.ExecuteJobs(context.Background(), plan, nil); err != nil || res.Done != plan.Total {
		t.Fatalf("run again: %+v, %v", res, err)
	}
	check(want)
}
