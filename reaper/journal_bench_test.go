//go:build bench

package reaper

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// TestJobsRequeueJournalBench (make bench): a bulk requeue of 50,000 dead
// jobs with its journal (the scores read on a second connection and a
// record written before and after each script call) against the same
// requeue without one, on the same redis-server in the same run, rounds
// alternating; it prints the medians and their ratio. No absolute-time
// assertion.
func TestJobsRequeueJournalBench(t *testing.T) {
	const n, rounds = 50_000, 5
	srv := redistest.Start(t)
	c, read := srv.Dial(), srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	fill := func() {
		jobsDo(t, c, "DEL", "work:dead", "work:jobs:mail")
		for i := 0; i < n; i++ {
			if err := c.Send("ZADD", "work:dead", 1700000000+i%5000, jobsDead(fmt.Sprintf("k%06d", i), "mail")); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Do(""); err != nil {
			t.Fatal(err)
		}
		// The pool serving "mail" stays alive.
		jobsDo(t, c, "HSET", "work:worker_pools:p1", "heartbeat_at", redistest.Time(t, c).Unix())
	}
	runOnce := func(withJournal bool) time.Duration {
		fill()
		plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true})
		if err != nil {
			t.Fatal(err)
		}
		x := NewJobsExecutor("work", DefaultBatch)
		var w *journal.Writer
		if withJournal {
			if w, err = (journal.Dir{Path: t.TempDir()}).Create(journal.Header{Namespace: "work", Op: journal.OpRequeue}); err != nil {
				t.Fatal(err)
			}
			x.WithJournal(NewJobsJournal(w, read))
		}
		start := time.Now()
		res, err := x.Execute(context.Background(), c, plan, nil)
		took := time.Since(start)
		if err != nil || res.Done != n {
			t.Fatalf("requeue: %d of %d (plan %d, skipped %v): %v", res.Done, n, plan.Total, plan.Skipped, err)
		}
		if w != nil {
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		return took
	}
	var plain, journalled []time.Duration
	for i := 0; i < rounds; i++ {
		plain = append(plain, runOnce(false))
		journalled = append(journalled, runOnce(true))
	}
	median := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	p, j := median(plain), median(journalled)
	fmt.Printf("bulk requeue of %d dead jobs, median of %d: journalled / plain %.2fx (%s vs %s)\n", n, rounds, float64(j)/float64(p), j.Round(time.Millisecond), p.Round(time.Millisecond))
}
