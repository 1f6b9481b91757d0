package tui

// This file owns the p key: pause or unpause the job type under the cursor
// in the Job types view, after a y in a dialog that shows the plan.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// Pauser pauses or unpauses job types (reaper.Pauser in the program).
type Pauser interface {
	Pause(ctx context.Context, plan reaper.PausePlan) (reaper.PauseResult, error)
}

const (
	actionPause   actionKind = "pause"
	actionUnpause actionKind = "unpause"
)

// pauseTarget is the job type p acts on: the one under the cursor of the
// Job types view (not in a pool's detail or a queue).
func (m Model) pauseTarget() (model.JobType, bool) {
	return m.selectedJobType()
}

// pauseLabel names what p will do: pause, or unpause a paused job type.
func (m Model) pauseLabel(k keyMap) keyMap {
	if jt, ok := m.pauseTarget(); ok && jt.Paused {
		k.setHelp(actions.Pause, "p", "unpause")
	} else {
		k.setHelp(actions.Pause, "p", "pause")
	}
	return k
}

// togglePause is what p does to jt: pause it, or unpause it when it is
// paused.
func togglePause(jt model.JobType) actionKind {
	if jt.Paused {
		return actionUnpause
	}
	return actionPause
}

// buildPause plans the pause or unpause (p toggles) of the job type jt.
func (m Model) buildPause(jt model.JobType) (action, error) {
	kind := togglePause(jt)
	plan, err := reaper.NewPausePlan(m.snap, []string{jt.Name}, kind == actionPause, false)
	if err != nil {
		return action{}, fmt.Errorf("cannot plan the %s: %s", kind, textsafe.Clean(err.Error()))
	}
	return pauseAction(plan, m.wr.Pause), nil
}

// pauseAction turns a pause or unpause plan into an action.
func pauseAction(plan reaper.PausePlan, p Pauser) action {
	kind, verb := actionPause, "Pause"
	running := "pausing "
	if !plan.Pause {
		kind, verb, running = actionUnpause, "Unpause", "unpausing "
	}
	names := textsafe.Clean(strings.Join(plan.Names(), ", "))
	a := action{
		kind:    kind,
		title:   fmt.Sprintf("%s %s?", verb, names),
		body:    planLines(func(w io.Writer) { reaper.RenderPausePlan(w, plan) }),
		running: running + names,
		targets: plan.Names(),
	}
	a.run = func(ctx context.Context, _ func(moved, total int64)) (actionOutcome, error) {
		res, err := p.Pause(ctx, plan)
		return summarizePause(res), err
	}
	return a
}

// summarizePause puts a pause result in words.
func summarizePause(res reaper.PauseResult) actionOutcome {
	out := actionOutcome{journal: res.Journal}
	var parts []string
	for _, j := range res.Jobs {
		name := textsafe.Clean(j.Name)
		switch j.Status {
		case reaper.PauseDone, reaper.UnpauseDone:
			parts = append(parts, j.Status+" "+name)
		case reaper.PauseRefused:
			out.failed = true
			parts = append(parts, fmt.Sprintf("%s not changed: %s is a %s", name, textsafe.Clean(j.Key), textsafe.Clean(j.Type)))
		case reaper.PauseUnchanged:
			out.failed = true
			parts = append(parts, name+" not changed")
		default:
			parts = append(parts, name+" was "+j.Status)
		}
	}
	out.summary = strings.Join(parts, "; ")
	if out.summary == "" {
		out.summary = "nothing changed"
	}
	return out
}
