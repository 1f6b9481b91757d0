package reaper

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// timeCounter counts the TIME commands sent on a connection.
type timeCounter struct {
	redis.Conn
	times int
}

func (c *timeCounter) Send(cmd string, args ...any) error {
	if cmd == "TIME" {
		c.times++
	}
	return c.Conn.Send(cmd, args...)
}

func (c *timeCounter) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	if cmd == "TIME" {
		c.times++
	}
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *timeCounter) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

// A journalled requeue whose calls have nothing to read before them (the
// members of a walk by score range carry their scores) reads Redis's clock
// once, not once a call: Redis answers the journal's connection only
// between the script calls in flight on the other, so each TIME waited for
// one. Each intent still carries Redis's time, never going back.
func TestJobsJournalReadsTheClockOnce(t *testing.T) {
	const n = 2000
	srv := redistest.Start(t)
	c := srv.Dial()
	read := &timeCounter{Conn: srv.Dial()}
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	for i := 0; i < n; i++ {
		if err := c.Send("ZADD", "work:dead", 1700000000+i, jobsDead(fmt.Sprintf("k%06d", i), "mail")); err != nil {
			t.Fatal(err)
		}
	}
	q, err := model.ParseQuery("since:2023-11-14T22:13:20Z until:2023-11-15T00:00:00Z", model.QueryClock{Now: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true, Query: q})
	if err != nil || plan.Total != n {
		t.Fatalf("plan: %d jobs, %v", plan.Total, err)
	}
	dir := journal.Dir{Path: t.TempDir()}
	w, err := dir.Create(journal.Header{Namespace: "work", Op: journal.OpRequeue})
	if err != nil {
		t.Fatal(err)
	}
	start := redistest.Time(t, c).UnixMilli()
	res, err := NewJobsExecutor("work", 100).WithJournal(NewJobsJournal(w, read)).Execute(context.Background(), c, plan, nil)
	end := redistest.Time(t, c).UnixMilli()
	if err != nil || res.Done != n || res.Calls < 10 {
		t.Fatalf("requeue: %d of %d in %d calls: %v", res.Done, n, res.Calls, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if read.times != 1 {
		t.Fatalf("the journal read Redis's clock %d times over %d calls, want once", read.times, res.Calls)
	}
	acts, _, err := dir.List()
	if err != nil || len(acts) != 1 {
		t.Fatalf("journal: %d actions, %v", len(acts), err)
	}
	last, intents := int64(0), 0
	for _, call := range acts[0].Calls {
		ms := call.Intent.RedisMs
		if ms < last || ms < start-1000 || ms > end+1000 {
			t.Fatalf("intent at %d after %d, run from %d to %d", ms, last, start, end)
		}
		last = ms
		intents++
	}
	if intents != res.Calls {
		t.Fatalf("%d intents for %d calls", intents, res.Calls)
	}
}
