package reaper

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// A journalled bulk action stopped while the journal reads Redis's clock
// before a call says it was stopped (errors.Is context.Canceled), as it
// does when the stop comes between two calls: the screen tells a stop
// from a failure by it.
func TestJournalReadStoppedIsCancelled(t *testing.T) {
	srv := redistest.Start(t)
	c, read := srv.Dial(), srv.Dial()
	defer c.Close()
	defer read.Close()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	for i := range 5 {
		jobsDo(t, c, "ZADD", "work:dead", 1000+i, jobsDead(fmt.Sprintf("m%d", i), "mail"))
	}
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true})
	if err != nil {
		t.Fatal(err)
	}
	d := journal.Dir{Path: t.TempDir()}
	w, err := d.Create(journal.Header{Address: srv.Addr(), Namespace: "work", Op: journal.OpRequeue, Command: "jobs requeue"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }() // nothing was written that a test reads
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var res JobsResult
	_, _, err = NewJobsJournal(w, read).score(ctx, &plan, plan.Items[:1], &res)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the journal's read stopped by its context: err %v; want context.Canceled", err)
	}
	_, err = NewJobsJournal(w, read).queueIntent(ctx, plan.Items[0])
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the journal's queue intent stopped by its context: err %v; want context.Canceled", err)
	}
}
