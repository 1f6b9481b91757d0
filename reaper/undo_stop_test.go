package reaper

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// An undo stopped (Ctrl-C) while a call is in flight waits for that call's
// reply: what it reports put back is exactly what is back in Redis.
func TestUndoStoppedReportsExactly(t *testing.T) {
	srv := redistest.Start(t, "--enable-debug-command", "local")
	c := srv.Dial()
	jobsNS(t, c, []string{"mail"}, "mail")
	for i := 0; i < 40; i++ {
		jobsDo(t, c, "ZADD", "work:dead", 1700000000+i, jobsDead(fmt.Sprintf("d%03d", i), "mail"))
	}
	d := undoJournal(t)
	a, _ := journalledJobs(t, srv, d, journal.OpRequeue, JobsTarget{Set: model.SetDead, All: true}, 40)
	plan, err := PlanUndo(context.Background(), c, redisq.NewKeys("work"), a)
	if err != nil || len(plan.Items) != 40 {
		t.Fatalf("plan: %d items, %v", len(plan.Items), err)
	}
	w, err := d.Create(journal.Header{Address: srv.Addr(), Namespace: "work", Op: journal.OpUndo, UndoOf: a.Header.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}()
	// The server is held busy; the first call of 10 items queues behind
	// it, and the stop comes while it waits.
	blocker := srv.Dial()
	held := make(chan error, 1)
	go func() {
		_, err := blocker.Do("DEBUG", "SLEEP", "0.6")
		held <- err
	}()
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := NewUndoer(10).Execute(ctx, c, plan, w, nil)
	if herr := <-held; herr != nil {
		t.Fatal(herr)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("undo not stopped: %v (%+v)", err, res)
	}
	back := undoInt(t, srv.Dial(), "ZCARD", "work:dead")
	if back == 0 || res.Restored != back {
		t.Fatalf("reported %d put back, %d are back", res.Restored, back)
	}
}

// The undo of a park stopped while a call is in flight waits for that
// call too: the jobs it reports put back are exactly those that left the
// dead set, and its progress counted only those.
func TestDrainUndoStoppedReportsExactly(t *testing.T) {
	srv := redistest.Start(t, "--enable-debug-command", "local")
	c := srv.Dial()
	drainFill(t, c, 400, 5)
	d := undoJournal(t)
	a, _, parked := drainRun(t, c, d, DrainPark, 100, nil)
	if parked.Done != 80 {
		t.Fatalf("parked %d, want 80", parked.Done)
	}
	plan, err := PlanUndo(context.Background(), c, redisq.NewKeys("work"), a)
	if err != nil || len(plan.Items) != 80 {
		t.Fatalf("plan: %d items, %v", len(plan.Items), err)
	}
	w, err := d.Create(journal.Header{Address: srv.Addr(), Namespace: "work", Op: journal.OpUndo, UndoOf: a.Header.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}()
	blocker := srv.Dial()
	held := make(chan error, 1)
	go func() {
		_, err := blocker.Do("DEBUG", "SLEEP", "0.6")
		held <- err
	}()
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	var shown int64
	res, err := NewUndoer(DefaultBatch).Execute(ctx, c, plan, w, func(done, _ int64) { shown = done })
	if herr := <-held; herr != nil {
		t.Fatal(herr)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("undo not stopped: %v (%+v)", err, res)
	}
	back := 80 - undoInt(t, srv.Dial(), "ZCARD", "work:dead")
	if back == 0 || res.Restored != back || shown != back {
		t.Fatalf("reported %d put back (progress %d), %d are back", res.Restored, shown, back)
	}
}
