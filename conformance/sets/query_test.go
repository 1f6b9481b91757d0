package sets_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// A real pool fails three waves of jobs, seconds apart, into the dead set.
// A query selects exactly the jobs an equal filter over Client.DeadJobs
// pages selects (the window of the middle wave's deaths; err~, args.PATH:,
// fails>=); a bulk requeue by the window moves exactly those jobs, byte for
// byte (the dead members less their failure fields, t the requeue's time),
// and the same pool,
// now succeeding, runs each of them once.
func TestQueryMatchesUpstreamDeadJobs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	rp := gcstate.RedisPool(t, srv.Addr())
	var failing atomic.Bool
	failing.Store(true)
	var mu sync.Mutex
	runs := map[string]int{}
	wp := work.NewWorkerPool(ctxType{}, 4, "q", rp)
	wp.JobWithOptions("charge", work.JobOptions{MaxFails: 1}, func(j *work.Job) error {
		if failing.Load() {
			return fmt.Errorf("wave %v: gateway timeout", j.Args["wave"])
		}
		mu.Lock()
		runs[j.ID]++
		mu.Unlock()
		return nil
	})
	wp.Start()
	defer wp.Stop()
	enq := work.NewEnqueuer("q", rp)
	const perWave = 12
	for wave := 1; wave <= 3; wave++ {
		for i := 0; i < perWave; i++ {
			if _, err := enq.Enqueue("charge", work.Q{"wave": wave, "n": i, "order": fmt.Sprintf("ord_%d_%d", wave, i)}); err != nil {
				t.Fatal(err)
			}
		}
		gcstate.WaitFor(t, 20*time.Second, fmt.Sprintf("wave %d dead", wave), func() (bool, error) {
			n, err := redis.Int(c.Do("ZCARD", "q:dead"))
			return n == wave*perWave, err
		})
		time.Sleep(2100 * time.Millisecond)
	}
	client := work.NewClient("q", rp)
	var up []*work.DeadJob
	for page := uint(1); ; page++ {
		js, _, err := client.DeadJobs(page)
		if err != nil {
			t.Fatal(err)
		}
		if len(js) == 0 {
			break
		}
		up = append(up, js...)
	}
	lo, hi := int64(1<<62), int64(0)
	for _, j := range up {
		if j.Args["wave"] == float64(2) {
			lo, hi = min(lo, j.DiedAt), max(hi, j.DiedAt)
		}
	}
	keys := redisq.NewKeys("q")
	ctx := context.Background()
	window := fmt.Sprintf("since:%s until:%s", time.Unix(lo, 0).UTC().Format(time.RFC3339), time.Unix(hi, 0).UTC().Format(time.RFC3339))
	ids := func(text string) []string { return queryIDs(t, c, keys, model.SetDead, text) }
	upIDs := func(keep func(*work.DeadJob) bool) []string {
		return keptIDs(up, func(j *work.DeadJob) string { return j.ID }, keep)
	}
	for _, tc := range []struct {
		query string
		keep  func(*work.DeadJob) bool
	}{
		{window, func(j *work.DeadJob) bool { return j.DiedAt >= lo && j.DiedAt <= hi }},
		{`err~"^wave [13]:"`, func(j *work.DeadJob) bool { return j.Args["wave"] != float64(2) }},
		{`err:"GATEWAY timeout" args.n:3`, func(j *work.DeadJob) bool { return j.Args["n"] == float64(3) }},
		{`args.order:ord_3_7 fails>=1`, func(j *work.DeadJob) bool { return j.Args["order"] == "ord_3_7" && j.Fails >= 1 }},
		{`fails>=2`, func(j *work.DeadJob) bool { return j.Fails >= 2 }},
	} {
		got, want := ids(tc.query), upIDs(tc.keep)
		if fmt.Sprint(got) != fmt.Sprint(want) || (tc.query == window && len(want) < perWave) {
			t.Fatalf("%s: ours %v, upstream %v", tc.query, got, want)
		}
	}
	// Requeue the window; the pool now succeeds and runs each job once.
	q, _ := model.ParseQuery(window, model.QueryClock{Now: time.Now()})
	plan, err := reaper.PlanJobs(ctx, c, keys, reaper.JobsRequeue, reaper.JobsTarget{Set: model.SetDead, All: true, Query: q})
	if err != nil && !errors.Is(err, reaper.ErrUnserved) {
		t.Fatal(err)
	}
	want := upIDs(func(j *work.DeadJob) bool { return j.DiedAt >= lo && j.DiedAt <= hi })
	if wave2 := upIDs(func(j *work.DeadJob) bool { return j.Args["wave"] == float64(2) }); fmt.Sprint(want) != fmt.Sprint(wave2) {
		t.Fatalf("the window holds %v, the middle wave is %v", want, wave2)
	}
	if plan.Total != int64(len(want)) {
		t.Fatalf("plan takes %d, the window holds %d", plan.Total, len(want))
	}
	// The queue is paused while the requeue runs, so that its bytes can be
	// read before the pool takes them: each is the dead member as it was,
	// its failure fields (written last by gocraft/work's encoder) cut and
	// its enqueue time t set to the time of the requeue, as gocraft/work's
	// RetryDeadJob does; every other byte the same.
	before, err := redis.Strings(c.Do("ZRANGEBYSCORE", "q:dead", lo, hi))
	if err != nil || len(before) != len(want) {
		t.Fatalf("window members: %d, %v", len(before), err)
	}
	var cut []string
	for _, m := range before {
		i := strings.Index(m, `,"fails":`)
		if i < 0 || !strings.HasSuffix(m, "}") {
			t.Fatalf("dead member without its failure fields last: %s", m)
		}
		cut = append(cut, m[:i]+"}")
	}
	if _, err := c.Do("SET", "q:jobs:charge:paused", "1"); err != nil {
		t.Fatal(err)
	}
	failing.Store(false)
	from := redistest.Time(t, c).Unix()
	res, err := reaper.NewJobsExecutor("q", 5).Execute(ctx, c, plan, nil)
	if err != nil || res.Done != int64(len(want)) {
		t.Fatalf("execute: %+v %v", res, err)
	}
	to := redistest.Time(t, c).Unix()
	queued, err := redis.Strings(c.Do("LRANGE", "q:jobs:charge", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	enqueuedAt := regexp.MustCompile(`,"t":(\d+),`)
	for i, q := range queued {
		m := enqueuedAt.FindStringSubmatch(q)
		if m == nil {
			t.Fatalf("queued job without t: %s", q)
		}
		if at, _ := strconv.ParseInt(m[1], 10, 64); at < from || at > to {
			t.Fatalf("queued job's t is not the time of the requeue (%d to %d): %s", from, to, q)
		}
		queued[i] = enqueuedAt.ReplaceAllString(q, `,"t":T,`)
	}
	for i := range cut {
		cut[i] = enqueuedAt.ReplaceAllString(cut[i], `,"t":T,`)
	}
	sort.Strings(cut)
	sort.Strings(queued)
	if strings.Join(queued, "\n") != strings.Join(cut, "\n") {
		t.Fatalf("queue holds\n%s\nwant the dead members less their failure fields\n%s", strings.Join(queued, "\n"), strings.Join(cut, "\n"))
	}
	if _, err := c.Do("DEL", "q:jobs:charge:paused"); err != nil {
		t.Fatal(err)
	}
	gcstate.WaitFor(t, 30*time.Second, "every requeued job run", func() (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(runs) == len(want), nil
	})
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, id := range want {
		if runs[id] != 1 {
			t.Fatalf("job %s ran %d times", id, runs[id])
		}
	}
	if n, _ := redis.Int(c.Do("ZCARD", "q:dead")); n != len(up)-len(want) || len(runs) != len(want) {
		t.Fatalf("dead %d, ran %d; want %d and %d", n, len(runs), len(up)-len(want), len(want))
	}
}
