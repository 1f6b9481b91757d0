package tui

// This file owns throttling from the screen: t on a job type opens the
// command line at ":throttle JOB ", the limit typed there (or "reset")
// opens the dialog with the plan, and y writes the cap.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// Throttler caps a job type's max_concurrency (the program's journals it).
type Throttler interface {
	Throttle(ctx context.Context, plan reaper.ThrottlePlan) (reaper.ThrottleResult, error)
}

const actionThrottle actionKind = "throttle"

// throttleUnavailable is why :throttle is not there ("" when it is).
func (m Model) throttleUnavailable() string {
	switch {
	case m.opts.ReadOnly:
		return "read-only: throttle is disabled"
	case m.wr.Throttle == nil:
		return "throttle is not available here"
	}
	return ""
}

// promptThrottle opens the command line at ":throttle JOB " for the job
// type under the cursor: the limit is typed there.
func (m Model) promptThrottle(jt model.JobType) (Model, tea.Cmd) {
	m.cmdline.open = true
	m.cmdline.input = filterInput{}.set("throttle " + jt.Name + " ")
	m.cmdline.hist = len(m.cmdline.history)
	m.cmdline = m.cmdline.endCycle()
	m.status = statusLine{}
	return m, nil
}

// throttleCommand runs ":throttle [JOB] N" or ":throttle [JOB] reset"; the
// job type is the one under the cursor when it is left out.
func (m Model) throttleCommand(args []string) (Model, tea.Cmd) {
	words := strings.Fields(strings.Join(args, " "))
	var job string
	switch len(words) {
	case 1:
		jt, ok := m.pauseTarget()
		if !ok {
			return m.setStatus("throttle needs a job type: select one in the Job types view, or type :throttle JOB N", true)
		}
		job = jt.Name
	case 2:
		job = words[0]
	default:
		return m.setStatus("throttle takes a job type and a limit: :throttle JOB N, or :throttle JOB reset", true)
	}
	limit := words[len(words)-1]
	reset := limit == "reset" || limit == "--reset"
	var n int64
	if !reset {
		var err error
		if n, err = reaper.ParseLimit(limit); err != nil {
			return m.setStatus(textsafe.Clean(err.Error())+", or reset for no cap", true)
		}
	}
	if m.running != nil {
		return m.setStatus(fmt.Sprintf("%s is still running: wait for it to finish", m.running.title), true)
	}
	if m.snap == nil {
		return m.setStatus("no data yet", true)
	}
	plan, err := reaper.NewThrottlePlan(m.snap, job, n, reset)
	if err != nil {
		return m.setStatus("cannot plan the throttle: "+textsafe.Clean(err.Error()), true)
	}
	if !plan.Changes() {
		return m.setStatus(fmt.Sprintf("%s's max_concurrency is %d already", textsafe.Clean(job), plan.New), false)
	}
	a := throttleAction(plan, m.wr.Throttle)
	if m.opts.Target != "" {
		a.title = oneLine(m.opts.Target) + ": " + a.title
	}
	m = m.openDialog(confirmDialog{action: a})
	if m.err != nil {
		m.dialog.staleFor = m.opts.Now().Sub(m.fetchedAt)
	}
	return m, nil
}

// throttleAction turns a throttle plan into an action.
func throttleAction(plan reaper.ThrottlePlan, t Throttler) action {
	name := textsafe.Clean(plan.Name)
	a := action{
		kind:    actionThrottle,
		title:   fmt.Sprintf("Set %s's max_concurrency to %d?", name, plan.New),
		body:    planLines(func(w io.Writer) { reaper.RenderThrottlePlan(w, plan) }),
		running: "throttling " + name,
		targets: []string{plan.Name},
	}
	a.run = func(ctx context.Context, _ func(moved, total int64)) (actionOutcome, error) {
		res, err := t.Throttle(ctx, plan)
		out := actionOutcome{journal: res.Journal}
		var b strings.Builder
		reaper.RenderThrottleResult(&b, res)
		out.summary = textsafe.Clean(strings.TrimSpace(b.String()))
		out.failed = res.Status != reaper.ThrottleDone && res.Status != reaper.ThrottleAlready
		if err != nil && errors.Is(err, reaper.ErrWrongType) {
			out.failed = true
		}
		return out, err
	}
	return a
}
