package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// actionKind names an action in the audit log.
type actionKind string

// The actions. A new one (requeue, repair locks) gets a kind here, a key in
// keyMap, a case in buildAction and a builder like reapAction.
const (
	actionReap actionKind = "reap"
)

// action is a change to Redis the operator confirms: what the dialog shows
// and what runs on 'y'. Building one reads nothing and writes nothing.
type action struct {
	kind    actionKind
	title   string   // dialog title
	body    []string // dialog lines, clean
	running string   // "reaping 2 pools", for the status line
	targets []string // for the audit log
	total   int64    // jobs it moves, for the progress bar
	note    string   // the dialog's last word on safety; the reaper's by default
	run     func(ctx context.Context, progress func(moved, total int64)) (actionOutcome, error)
}

// actionOutcome is what an action did, in words for the status line.
type actionOutcome struct {
	summary string
	moved   int64
	// failed is set when part of the action was not done (a pool alive
	// again, an error on one pool): the status line shows it as an error.
	failed bool
	// emptied are the in-progress lists a requeue emptied: they leave the
	// Orphans view at once, before the next scan confirms it.
	emptied []string
}

// buildAction plans an action from the last snapshot.
func (m Model) buildAction(kind actionKind, t reaper.Targets) (action, error) {
	switch kind {
	case actionReap:
		plan, err := m.opts.Planner(m.snap, t)
		if err != nil {
			return action{}, planError(err)
		}
		return reapAction(plan, m.opts.Reaper), nil
	case actionRequeue:
		keys, ok := m.requeueTargets()
		if !ok {
			return action{}, errors.New("nothing to requeue here")
		}
		return m.buildRequeue(keys)
	case actionRepairLocks:
		jt, ok := m.selectedDriftedJob()
		if !ok {
			return action{}, errors.New("select a job type marked DRIFT")
		}
		return m.buildRepairLocks(jt.Name)
	}
	return action{}, fmt.Errorf("unknown action %q", kind)
}

func planError(err error) error {
	switch {
	case errors.Is(err, reaper.ErrNothingToDo):
		return errors.New("no dead pool to reap")
	case errors.Is(err, reaper.ErrPoolAlive):
		return fmt.Errorf("not reaped: %s", textsafe.Clean(err.Error()))
	}
	return fmt.Errorf("cannot plan the reap: %s", textsafe.Clean(err.Error()))
}

// reapAction turns a reap plan into an action.
func reapAction(plan reaper.Plan, r Reaper) action {
	ids := make([]string, len(plan.Pools))
	for i, pp := range plan.Pools {
		ids[i] = pp.PoolID
	}
	n := len(plan.Pools)
	a := action{
		kind:    actionReap,
		title:   fmt.Sprintf("Reap %s?", plural(n, "dead pool", "dead pools")),
		body:    renderPlan(plan),
		running: "reaping " + plural(n, "pool", "pools"),
		targets: ids,
		total:   plan.TotalJobs(),
	}
	a.run = func(ctx context.Context, progress func(moved, total int64)) (actionOutcome, error) {
		res, err := r.Execute(ctx, plan, reaper.Progress(progress))
		return summarizeReap(res), err
	}
	return a
}

// renderPlan is the dialog text of a reap plan: per pool the jobs that go
// back per job type and the lock changes.
func renderPlan(plan reaper.Plan) []string {
	lines := []string{fmt.Sprintf("Moves %s back to the queues and releases the pools' locks:", plural64(plan.TotalJobs(), "job", "jobs"))}
	for _, pp := range plan.Pools {
		hb := "no heartbeat"
		if !pp.HeartbeatMissing {
			hb = "last heartbeat " + model.FormatAge(plan.RedisTime.Sub(timeUnix(pp.HeartbeatAt))) + " ago"
		}
		lines = append(lines, fmt.Sprintf("pool %s (%s)", textsafe.Clean(pp.PoolID), hb))
		if len(pp.Jobs) == 0 {
			lines = append(lines, "  nothing in progress, no locks held")
		}
		for _, j := range pp.Jobs {
			// The reap deletes the pool's lock_info field (as upstream does).
			li := "no lock_info entry"
			if j.LockInfoPresent {
				li = fmt.Sprintf("lock_info %d→removed", j.LockInfoBefore)
			}
			move := plural64(j.Jobs, "job", "jobs") + " to the queue"
			if j.Jobs == 0 {
				move = "nothing in progress"
			}
			lock := fmt.Sprintf("lock %d→%d", j.LockBefore, j.LockAfter)
			if j.LockBefore == j.LockAfter {
				lock = fmt.Sprintf("lock stays %d", j.LockBefore)
			}
			lines = append(lines, fmt.Sprintf("  %s: %s; %s; %s", textsafe.Clean(j.JobName), move, lock, li))
		}
	}
	return lines
}

// summarizeReap puts a reap result in words.
func summarizeReap(res reaper.Result) actionOutcome {
	var out actionOutcome
	reaped := 0
	var problems, notes []string
	for _, p := range res.Pools {
		if p.Reaped {
			reaped++
		}
		switch {
		case p.Gone && p.Left == 0 && p.Err == nil:
			// Another reaper (or a clean stop) finished it first: nothing
			// is lost, so it is not a failure.
			notes = append(notes, fmt.Sprintf("pool %s was already gone", textsafe.Clean(shortID(p.PoolID))))
		case p.Skipped != "":
			problems = append(problems, textsafe.Clean(p.Skipped))
		}
		if p.Err != nil {
			problems = append(problems, fmt.Sprintf("pool %s: %s", textsafe.Clean(shortID(p.PoolID)), textsafe.Clean(p.Err.Error())))
		}
	}
	out.moved = res.TotalMoved()
	out.summary = fmt.Sprintf("reaped %s, %s back in their queues", plural(reaped, "pool", "pools"), plural64(out.moved, "job", "jobs"))
	if len(notes) > 0 {
		sort.Strings(notes)
		out.summary += "; " + strings.Join(notes, "; ")
	}
	if len(problems) > 0 {
		out.failed = true
		sort.Strings(problems)
		out.summary += "; " + strings.Join(problems, "; ")
	}
	return out
}

func plural(n int, one, many string) string { return plural64(int64(n), one, many) }

func plural64(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// shortID shortens a long pool ID for messages.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12] + "…"
	}
	return id
}
