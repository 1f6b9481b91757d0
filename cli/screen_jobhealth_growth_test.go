package cli

import (
	"context"
	"fmt"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// The screen's polls remember each queue across polls: a queue whose
// oldest job's wait grows at every poll while it grows is a backlog by
// the third poll, under the wait limit; the first poll alone (what
// snapshot reads) does not name it.
func TestScreenPollBacklogByGrowth(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	now := redistest.Time(t, c).Unix()
	srv.Do("SADD", k.KnownJobs(), "resize")
	srv.Do("SADD", k.WorkerPools(), "p1")
	ctx := context.Background()
	client := redisq.NewClient(srv.Pool(), "work", model.DefaultDeadAfter)
	p := healthPoller{Poller: redisq.NewPoller(client), client: client,
		tracker: redisq.NewHealthTracker("work", model.DefaultHealthLimits())}
	queue := func(poll, n int) {
		srv.Do("HSET", k.Heartbeat("p1"), "heartbeat_at", now, "started_at", now-100, "host", "h", "pid", 1,
			"concurrency", 4, "job_names", "resize", "worker_ids", "w1,w2,w3,w4")
		srv.Do("DEL", k.Queue("resize"))
		for i := 0; i < n; i++ {
			srv.Do("LPUSH", k.Queue("resize"), fmt.Sprintf(`{"name":"resize","id":"j%d","t":%d,"args":{}}`, i, now-int64(70+10*poll)+int64(i)))
		}
	}
	for poll, n := range []int{10, 20, 30} {
		queue(poll, n)
		snap, err := p.Poll(ctx, redisq.PollRequest{})
		if err != nil {
			t.Fatal(err)
		}
		got := snap.Jobs.Of("resize")
		if poll < 2 && len(got) != 0 {
			t.Errorf("poll %d: %+v", poll+1, got)
		}
		if poll == 2 && (len(got) != 1 || got[0].Kind != model.FindingBacklog) {
			t.Errorf("poll 3: %+v", got)
		}
	}
}

// An explanation between the polls judges the queues without adding a
// sample of them: two polls with an explanation between are not the three
// polls a backlog by growth needs.
func TestScreenExplainAddsNoWaitSample(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	now := redistest.Time(t, c).Unix()
	ctx := context.Background()
	srv.Do("SADD", k.KnownJobs(), "resize")
	srv.Do("SADD", k.WorkerPools(), "p1")
	srv.Do("HSET", k.Heartbeat("p1"), "heartbeat_at", now, "started_at", now-100, "host", "h", "pid", 1,
		"concurrency", 4, "job_names", "resize", "worker_ids", "w1,w2,w3,w4")
	client := redisq.NewClient(srv.Pool(), "work", model.DefaultDeadAfter)
	tracker := redisq.NewHealthTracker("work", model.DefaultHealthLimits())
	p := healthPoller{Poller: redisq.NewPoller(client), client: client, tracker: tracker}
	for step, n := range []int{10, 20, 30} {
		srv.Do("DEL", k.Queue("resize"))
		for i := 0; i < n; i++ {
			srv.Do("LPUSH", k.Queue("resize"), fmt.Sprintf(`{"name":"resize","id":"j%d","t":%d,"args":{}}`, i, now-int64(70+10*step)+int64(i)))
		}
		if step == 1 {
			snap, err := redisq.NewPoller(client).Poll(ctx, redisq.PollRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if err := client.AssessJobsAside(ctx, tracker, snap); err != nil {
				t.Fatal(err)
			}
			continue
		}
		snap, err := p.Poll(ctx, redisq.PollRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if got := snap.Jobs.Of("resize"); len(got) != 0 {
			t.Errorf("step %d: %+v", step+1, got)
		}
	}
}
