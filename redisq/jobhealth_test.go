package redisq

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// The tracker's first read counts the hour's deaths and the retry set's
// failures; a later read counts only what was added, each failure once,
// and reads only the new members, however large the dead set.
func TestHealthTrackerFollowsFailures(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	now := redistest.Time(t, c)
	dead := func(at time.Time, id, err string) {
		redistest.Do(t, c, "ZADD", "work:dead", at.Unix(),
			fmt.Sprintf(`{"name":"charge","id":"%s","t":1,"args":{},"fails":4,"err":%q,"failed_at":%d}`, id, err, at.Unix()))
	}
	for i := 0; i < 500; i++ { // old deaths, outside the history
		dead(now.Add(-3*time.Hour), fmt.Sprintf("old%03d", i), "old")
	}
	for i := 0; i < 30; i++ {
		dead(now.Add(-time.Duration(i)*time.Second), fmt.Sprintf("new%03d", i), "gateway timeout after 30s")
	}
	redistest.Do(t, c, "ZADD", "work:retry", now.Add(time.Minute).Unix(),
		fmt.Sprintf(`{"name":"charge","id":"r1","t":1,"args":{},"fails":1,"err":"gateway timeout after 31s","failed_at":%d}`, now.Unix()))
	l := model.DefaultHealthLimits()
	tr := NewHealthTracker("work", l)
	snap := &model.Snapshot{RedisTime: now}
	if err := tr.Assess(ctx, c, snap); err != nil {
		t.Fatal(err)
	}
	if got := snap.Jobs.Rates["charge"].Failures; got != 31 {
		t.Fatalf("failures after the first read = %d, want 31", got)
	}
	// Deaths in the same second as the newest read, and one later; the
	// retry member read again is not counted twice.
	dead(now, "same-second", "gateway timeout after 30s")
	dead(now.Add(time.Second), "later", "card declined")
	cost := &model.ReadCost{}
	snap = &model.Snapshot{RedisTime: now.Add(2 * time.Second)}
	if err := tr.Assess(ctx, metered(c, cost), snap); err != nil {
		t.Fatal(err)
	}
	if got := snap.Jobs.Rates["charge"].Failures; got != 33 {
		t.Errorf("failures after the second read = %d, want 33", got)
	}
	if cost.Commands != 2 || cost.ReplyBytes > 2000 {
		t.Errorf("second read cost %d commands, %d bytes: more than the new members", cost.Commands, cost.ReplyBytes)
	}
	p := snap.Jobs.Of("charge")
	if len(p) != 1 || p[0].Kind != model.FindingFailing || !strings.Contains(p[0].Short, "gateway timeout after Ns") {
		t.Errorf("problems %+v", p)
	}
	if snap.Findings[0].Kind != model.FindingFailing {
		t.Errorf("findings %+v", snap.Findings)
	}
}
