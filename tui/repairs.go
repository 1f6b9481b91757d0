package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// The repairs: R requeues in-progress lists (an orphan, or every
// list of a dead pool), L repairs a drifted job type's locks. Both plan
// from the last snapshot (and the last orphan scan) with the reaper's pure
// planners, so opening the dialog reads nothing; the scripts re-check what
// matters when they run. A poll does not look for leaked in-progress
// entries: L lists those the last sweep found, and the repair itself
// refuses a type whose lists hold one the plan does not list.

const (
	actionRequeue     actionKind = "requeue"
	actionRepairLocks actionKind = "repair-locks"
)

// requeueTargets are the in-progress lists R acts on here: the selected
// orphan in the Orphans view, or every non-empty list of a dead pool in its
// detail view (which has no job-type cursor, so R takes all of the pool's
// lists; in the pools list x, the reap, is the key for a dead pool).
func (m Model) requeueTargets() ([]string, bool) {
	if v, ok := m.top().(orphanPicker); ok {
		if o, ok := v.pickedOrphan(); ok {
			return []string{o.Key}, true
		}
	}
	if _, ok := m.top().(poolDetail); !ok {
		return nil, false
	}
	p, ok := m.selectedPool()
	if !ok || p.Status != model.StatusDead || m.snap == nil {
		return nil, false
	}
	var out []string
	for _, job := range inProgressJobNames(p) {
		out = append(out, m.names.InProgress(job, p.ID))
	}
	return out, len(out) > 0
}

// selectedDriftedJob is the job type under the cursor when it has DRIFT.
func (m Model) selectedDriftedJob() (model.JobType, bool) {
	jt, ok := m.selectedJobType()
	if !ok || !jt.Drift {
		return model.JobType{}, false
	}
	return jt, true
}

// buildRequeue plans a requeue from the last snapshot and scan.
func (m Model) buildRequeue(listKeys []string) (action, error) {
	snap := *m.snap
	snap.Orphans = m.orphanList
	plan, err := reaper.NewRequeuePlan(&snap, listKeys)
	if err != nil {
		if errors.Is(err, reaper.ErrPoolAlive) {
			return action{}, fmt.Errorf("not requeued: %s", textsafe.Clean(err.Error()))
		}
		return action{}, fmt.Errorf("cannot plan the requeue: %s", textsafe.Clean(err.Error()))
	}
	return requeueAction(plan, m.wr.Requeue), nil
}

// requeueAction turns a requeue plan into an action.
func requeueAction(plan reaper.RequeuePlan, r Requeuer) action {
	n := len(plan.Lists)
	a := action{
		kind: actionRequeue,
		// What the running or last scan found is out of date.
		after:   func(m Model) (Model, tea.Cmd) { return m.restartScan() },
		title:   fmt.Sprintf("Requeue %s from %s?", plural64(plan.TotalJobs(), "job", "jobs"), plural(n, "in-progress list", "in-progress lists")),
		body:    planLines(func(w io.Writer) { reaper.RenderRequeuePlan(w, plan) }),
		running: "requeueing " + plural(n, "list", "lists"),
		total:   plan.TotalJobs(),
	}
	for _, l := range plan.Lists {
		a.targets = append(a.targets, l.Key)
	}
	a.run = func(ctx context.Context, progress func(moved, total int64)) (actionOutcome, error) {
		res, err := r.Requeue(ctx, plan, reaper.Progress(progress))
		return summarizeRequeue(res), err
	}
	return a
}

// summarizeRequeue puts a requeue result in words.
func summarizeRequeue(res reaper.RequeueResult) actionOutcome {
	out := actionOutcome{moved: res.TotalMoved(), journal: res.Journal}
	var problems []string
	done := 0
	for _, l := range res.Lists {
		switch {
		case l.Err != nil:
			problems = append(problems, fmt.Sprintf("%s: %s", textsafe.Clean(l.Key), textsafe.Clean(l.Err.Error())))
		case l.Skipped != "":
			problems = append(problems, textsafe.Clean(l.Skipped))
		default:
			done++
			if l.Remaining == 0 {
				out.emptied = append(out.emptied, l.Key)
			}
		}
	}
	out.summary = fmt.Sprintf("requeued %s from %s", plural64(out.moved, "job", "jobs"), plural(done, "list", "lists"))
	if len(problems) > 0 {
		out.failed = true
		sort.Strings(problems)
		out.summary += "; " + strings.Join(problems, "; ")
	}
	return out
}

// buildRepairLocks plans the lock repair of one job type.
func (m Model) buildRepairLocks(job string) (action, error) {
	snap := m.snap
	if snap != nil && !snap.LeakAware && len(m.sweep.leaked) > 0 {
		withLeaks := *snap
		withLeaks.Leaked = m.sweep.leaked
		snap = &withLeaks
	}
	plan, err := reaper.NewLockRepairPlan(snap, []string{job})
	if err != nil {
		return action{}, fmt.Errorf("cannot plan the lock repair: %s", textsafe.Clean(err.Error()))
	}
	if !plan.Changes() {
		return action{}, fmt.Errorf("the locks of %s are consistent: nothing to repair", textsafe.Clean(job))
	}
	return repairLocksAction(plan, m.wr.Repair), nil
}

// repairLocksAction turns a lock repair plan into an action.
func repairLocksAction(plan reaper.LockRepairPlan, r LockRepairer) action {
	var names []string
	for _, j := range plan.Jobs {
		names = append(names, j.JobName)
	}
	a := action{
		kind:    actionRepairLocks,
		title:   fmt.Sprintf("Repair the locks of %s?", textsafe.Clean(strings.Join(names, ", "))),
		body:    planLines(func(w io.Writer) { reaper.RenderLockRepairPlan(w, plan) }),
		running: "repairing locks",
		targets: names,
	}
	a.run = func(ctx context.Context, _ func(moved, total int64)) (actionOutcome, error) {
		res, err := r.RepairLocks(ctx, plan)
		return summarizeRepairLocks(res), err
	}
	return a
}

// summarizeRepairLocks puts a lock repair result in words.
func summarizeRepairLocks(res reaper.LockRepairResult) actionOutcome {
	out := actionOutcome{journal: res.Journal}
	var parts []string
	for _, j := range res.Jobs {
		switch {
		case j.Err != nil:
			out.failed = true
			parts = append(parts, fmt.Sprintf("%s not repaired: %s", textsafe.Clean(j.JobName), textsafe.Clean(j.Err.Error())))
		case !j.Applied:
			out.failed = true
			parts = append(parts, fmt.Sprintf("%s not repaired", textsafe.Clean(j.JobName)))
		default:
			parts = append(parts, fmt.Sprintf("repaired the locks of %s: lock %d, %s", textsafe.Clean(j.JobName), j.LockAfter,
				plural(len(j.LockInfoAfter), "lock_info entry", "lock_info entries")))
		}
	}
	out.summary = strings.Join(parts, "; ")
	if out.summary == "" {
		out.summary = "nothing repaired"
	}
	return out
}
