package cli

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// The screen's undo (its actor's Undoer, planning from its history) of a
// Jobs-view requeue puts every job back byte-exact; its lock repair is
// journalled with the lock before, listed, and its undo refused.
func TestScreenUndoJobsRequeue(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	redistest.Do(t, c, "SET", "work:jobs:mail:lock", "7")
	before := redistest.Dump(t, c, "work:*")
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	tgt := &target{namespace: "work", endpoint: srv.Addr()}
	auditor := &audit.File{Path: auditPath, User: "ops"}
	hist := screenHistoryOf(auditPathOf(auditor), tgt)
	pool := srv.Pool()
	defer pool.Close()
	actor := screenWritesOf(reaper.NewReaper(pool, "work", 5), pool, tgt, 5, newScreenJournal(auditor, tgt), hist, nil)
	ctx := context.Background()

	plan, err := actor.Jobs.PlanJobs(ctx, reaper.JobsRequeue, reaper.JobsTarget{Set: model.SetDead, All: true})
	if err != nil {
		t.Fatal(err)
	}
	jobsRes, err := actor.Jobs.ExecuteJobs(ctx, plan, nil)
	if err != nil || jobsRes.Done != 40 {
		t.Fatalf("requeue from the screen: %d, %v", jobsRes.Done, err)
	}
	lp := reaper.LockRepairPlan{Namespace: "work", Jobs: []reaper.JobLockPlan{{JobName: "mail", Pools: []string{"p1"},
		InProgress: map[string]int64{}, LockPresent: true, LockBefore: 7, LockInfoBefore: map[string]string{}, LockInfoAfter: map[string]int64{}}}}
	lockRes, err := actor.Repair.RepairLocks(ctx, lp)
	if err != nil || len(lockRes.Jobs) != 1 || !lockRes.Jobs[0].Applied {
		t.Fatalf("lock repair from the screen: %+v, %v", lockRes, err)
	}

	l, err := hist.History(ctx)
	if err != nil || len(l.Actions) != 2 {
		t.Fatalf("history: %+v, %v", l, err)
	}
	repair, requeue := l.Actions[0], l.Actions[1]
	if repair.Command != "screen repair-locks" || requeue.Command != "screen jobs dead requeue" || requeue.Done != 40 {
		t.Fatalf("history, newest first: %+v", l.Actions)
	}
	// The results name their journals, for the screen's audit lines.
	if jobsRes.Journal != requeue.ID || lockRes.Journal != repair.ID {
		t.Fatalf("results name journals %q and %q, the history %q and %q", jobsRes.Journal, lockRes.Journal, requeue.ID, repair.ID)
	}
	a, err := hist.HistoryAction(ctx, repair.ID)
	if err != nil || len(a.Calls) != 1 || a.Calls[0].Intent.Items[0].Key == nil || string(a.Calls[0].Intent.Items[0].Key.Value) != "7" {
		t.Fatalf("the lock repair's journal holds no lock before: %+v, %v", a, err)
	}
	if _, err := actor.Undo.PlanUndo(ctx, repair.ID); !errors.Is(err, reaper.ErrUndoRefused) {
		t.Fatalf("undo of a lock repair: %v", err)
	}

	// Put the lock back by hand, then undo the requeue.
	redistest.Do(t, c, "SET", "work:jobs:mail:lock", "7")
	up, err := actor.Undo.PlanUndo(ctx, requeue.ID)
	if err != nil || len(up.Items) != 40 {
		t.Fatalf("undo plan: %d items, %v", len(up.Items), err)
	}
	res, id, err := actor.Undo.Undo(ctx, up, nil)
	if err != nil || res.Restored != 40 || id == "" {
		t.Fatalf("undo: %+v, journal %q, %v", res, id, err)
	}
	if got := redistest.Dump(t, c, "work:*"); !reflect.DeepEqual(got, before) {
		t.Fatal("after the screen's undo the namespace differs from before the requeue")
	}
	l, _ = hist.History(ctx)
	if len(l.Actions) != 3 || l.Actions[0].ID != id || !strings.Contains(l.Actions[2].State, "undone by "+id) {
		t.Fatalf("history after the undo: %+v", l.Actions)
	}
}
