package redisq

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// The tracker's reads against a dead set of 200,000 members, 10,000 of
// them in the last hour: the first read costs about what a raw
// ZRANGEBYSCORE of the hour does; a later read, with 50 new deaths, reads
// those alone. WORKQ_HEALTH_COST=1 logs the times (they are not asserted:
// the machine is shared).
func TestHealthTrackerCost(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a dead set of 200,000 members")
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	now := redistest.Time(t, c)
	const total, recent = 200_000, 10_000
	for from := 0; from < total; from += 5000 {
		args := []any{"work:dead"}
		for i := from; i < from+5000; i++ {
			at := now.Add(-3*time.Hour - time.Duration(i)*time.Second)
			if i < recent {
				at = now.Add(-time.Duration(i) * 360 * time.Millisecond)
			}
			args = append(args, at.Unix(), fmt.Sprintf(`{"name":"job%02d","id":"%024d","t":1,"args":{"n":%d},"fails":4,"err":"boom %d","failed_at":%d}`, i%20, i, i, i%7, at.Unix()))
		}
		redistest.Do(t, c, "ZADD", args...)
	}
	l := model.DefaultHealthLimits()
	since := now.Add(-l.History()).Unix()
	rawCost := &model.ReadCost{}
	start := time.Now()
	if _, err := metered(c, rawCost).Do("ZRANGEBYSCORE", "work:dead", since, "+inf", "WITHSCORES"); err != nil {
		t.Fatal(err)
	}
	raw := time.Since(start)

	tr := NewHealthTracker("work", l)
	first := &model.ReadCost{}
	start = time.Now()
	if err := tr.Assess(ctx, metered(c, first), &model.Snapshot{RedisTime: now}); err != nil {
		t.Fatal(err)
	}
	firstTook := time.Since(start)
	args := []any{"work:dead"}
	for i := 0; i < 50; i++ {
		args = append(args, now.Unix()+1, fmt.Sprintf(`{"name":"job01","id":"new%04d","t":1,"args":{},"err":"boom"}`, i))
	}
	redistest.Do(t, c, "ZADD", args...)
	later := &model.ReadCost{}
	start = time.Now()
	snap := &model.Snapshot{RedisTime: now.Add(2 * time.Second)}
	if err := tr.Assess(ctx, metered(c, later), snap); err != nil {
		t.Fatal(err)
	}
	laterTook := time.Since(start)
	if later.ReplyBytes > 50*200 || first.ReplyBytes > rawCost.ReplyBytes*13/10 {
		t.Errorf("reply bytes: raw %d, first %d, later %d", rawCost.ReplyBytes, first.ReplyBytes, later.ReplyBytes)
	}
	if got := snap.Jobs.Rates["job01"].Failures; got < 50 {
		t.Errorf("job01 failures %d: the 50 new ones not counted", got)
	}
	if os.Getenv("WORKQ_HEALTH_COST") != "" {
		t.Logf("raw ZRANGEBYSCORE of the history: %v, %d bytes; first read %v, %d commands, %d bytes (%.2fx the raw time); later read %v, %d commands, %d bytes",
			raw, rawCost.ReplyBytes, firstTook, first.Commands, first.ReplyBytes, firstTook.Seconds()/raw.Seconds(), laterTook, later.Commands, later.ReplyBytes)
	}
}
