package demo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// After Init the dead set holds the outage: a query for its window and
// error selects exactly the outage's charge_card jobs, a window around it
// without the error term nothing else, and older failures of other kinds
// lie outside it.
func TestOutageInDeadSet(t *testing.T) {
	b := realBackend(t)
	s := New(b.conn, Options{Seed: 7, Now: b.now})
	ctx := context.Background()
	if err := s.Init(ctx); err != nil {
		t.Fatal(err)
	}
	from := b.now.Add(-OutageAgo)
	window := fmt.Sprintf("since:%s until:%s", from.UTC().Format(time.RFC3339), from.Add(OutageSpan).UTC().Format(time.RFC3339))
	count := func(text string) *model.SetSummary {
		q, err := model.ParseQuery(text, model.QueryClock{Now: b.now})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := redisq.SummarizeSet(ctx, b.conn, redisq.NewKeys("work"), model.SetDead, redisq.SetFilter{Query: q}, redisq.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if sum := count(window + " err:timeout"); sum.Members != OutageJobs || sum.ByName["charge_card"] != OutageJobs {
		t.Fatalf("outage window: %+v", sum)
	}
	if sum := count(window); sum.Members != OutageJobs {
		t.Fatalf("the window holds %d jobs, want the outage's %d alone", sum.Members, OutageJobs)
	}
	if sum := count("until:2h"); sum.Members != olderDeaths || sum.ByError[model.NormalizeError(OutageError)] != 0 {
		t.Fatalf("older deaths: %+v", sum)
	}
}
