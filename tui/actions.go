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

// actionKind names an action in the audit log.
type actionKind string

// The actions (the repairs' kinds are in repairs.go). A new one gets a
// kind, an entry in the actions table (bindings.go) whose run opens the
// dialog with a builder like reapAction; the dialog, progress bar, audit
// line and refresh come with it, and what else follows it is its after.
const (
	actionReap actionKind = "reap"
)

// action is a change to Redis the operator confirms: what the dialog shows
// and what runs on 'y'. Building one reads nothing and writes nothing.
type action struct {
	kind    actionKind
	title   string   // dialog title
	body    []string // the plan, as the command line prints it; clean
	running string   // "reaping 2 pools", for the status line
	targets []string // for the audit log
	total   int64    // jobs it moves, for the progress bar
	// stoppable actions stop cleanly when their context is cancelled (esc
	// or ctrl+c while they run; see stop.go).
	stoppable bool
	run       func(ctx context.Context, progress func(moved, total int64)) (actionOutcome, error)
	// rate is the jobs a second the action runs at (0: no limit); an
	// action that takes one has rerate, the same action at another rate
	// (sets_rate.go).
	rate   int
	rerate func(rate int) action
	// after is what follows the action's end beside what follows every
	// action (the status line, a refresh, the open views read again):
	// another orphan scan after a requeue, the Jobs view's page after its
	// requeues and deletes. nil for nothing more.
	after func(m Model) (Model, tea.Cmd)
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
	// journal is the ID of the action's journal, for its audit line ("" for
	// none).
	journal string
}

// buildReap plans a reap of t from the last snapshot.
func (m Model) buildReap(t reaper.Targets) (action, error) {
	plan, err := reaper.NewPlan(m.snap, t)
	if err != nil {
		return action{}, planError(err)
	}
	return reapAction(plan, m.wr.Reap), nil
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
		body:    planLines(func(w io.Writer) { reaper.RenderReapPlan(w, plan) }),
		running: "reaping " + plural(n, "pool", "pools"),
		targets: ids,
		total:   plan.TotalJobs(),
	}
	a.run = func(ctx context.Context, progress func(moved, total int64)) (actionOutcome, error) {
		res, err := r.Reap(ctx, plan, reaper.Progress(progress))
		return summarizeReap(res), err
	}
	return a
}

// planLines is a plan as the command line prints it (reaper's renderers),
// one dialog line per printed line. The renderers clean what they print;
// each line is cleaned again, so the dialog never depends on that.
func planLines(render func(io.Writer)) []string {
	var b strings.Builder
	render(&b)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = textsafe.Clean(strings.TrimRight(l, " "))
	}
	return lines
}

// summarizeReap puts a reap result in words.
func summarizeReap(res reaper.Result) actionOutcome {
	out := actionOutcome{journal: res.Journal}
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
			notes = append(notes, fmt.Sprintf("pool %s was already gone", textsafe.Clean(model.ShortID(p.PoolID))))
		case p.Skipped != "":
			problems = append(problems, textsafe.Clean(p.Skipped))
		}
		if p.Err != nil {
			problems = append(problems, fmt.Sprintf("pool %s: %s", textsafe.Clean(model.ShortID(p.PoolID)), textsafe.Clean(p.Err.Error())))
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
