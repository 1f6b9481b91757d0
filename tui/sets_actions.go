package tui

// This file owns the Jobs view's writes: R requeues and D deletes the
// marked members (or the one under the cursor). The plan is read from
// Redis (reaper.PlanJobs: it checks known_jobs and the pools that serve
// each name), shown as the command line's --dry-run prints it, and runs on
// 'y' as every action does: progress, one audit line, a refresh that keeps
// the cursor.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

const (
	actionJobsRequeue actionKind = "jobs-requeue"
	actionJobsDelete  actionKind = "jobs-delete"
)

var errNoSetScanner = errors.New("the summary is not available here")

// setsPlanMsg is a plan read for the Jobs view's dialog.
type setsPlanMsg struct {
	seq  int
	kind actionKind
	plan reaper.JobsPlan
	err  error
	// ask is what was asked for, to ask again with Force.
	ask setsAsk
	// unforced: plan is the one Force would run, read because without it
	// the requeue was refused or took nothing (no live pool serves the
	// jobs); y does not run it, F asks for it.
	unforced bool
}

// setsAsk is one plan asked for: the action, its target, what the status
// line calls it and how long the plan may take.
type setsAsk struct {
	kind    actionKind
	action  reaper.JobsAction
	target  reaper.JobsTarget
	what    string
	timeout time.Duration
	// rate is the bulk requeue's rate its dialog starts at.
	rate int
}

// sortMembers orders members as the plans list them: by score, then bytes.
func sortMembers(jobs []model.SetJob) {
	sort.Slice(jobs, func(i, j int) bool {
		if jobs[i].Score != jobs[j].Score {
			return jobs[i].Score < jobs[j].Score
		}
		return bytes.Compare(jobs[i].Raw, jobs[j].Raw) < 0
	})
}

// jobsTarget addresses members one by one: a job by id and exact score, a
// member that is not a job by its bytes and score.
func jobsTarget(set model.SetName, jobs []model.SetJob) reaper.JobsTarget {
	t := reaper.JobsTarget{Set: set}
	for _, sj := range jobs {
		if sj.Job != nil && sj.Job.ID != "" {
			t.Refs = append(t.Refs, reaper.JobRef{ID: sj.Job.ID, Score: sj.ScoreText})
			continue
		}
		t.Refs = append(t.Refs, reaper.JobRef{Raw: sj.Raw, Score: sj.ScoreText})
	}
	return t
}

// openSetsAction reads the plan of R or D on the Jobs view's jobs (or,
// on a job's detail, on the list's under it). The dialog opens when the
// plan arrives. Nothing is written before 'y'.
func (m Model) openSetsAction(kind actionKind) (Model, tea.Cmd) {
	return m.openSetsActionAt(kind, 0)
}

// openSetsActionAt is openSetsAction with the rate the dialog of a bulk
// requeue starts at (sets_rate.go; 0: no limit).
func (m Model) openSetsActionAt(kind actionKind, rate int) (Model, tea.Cmd) {
	if m.running != nil {
		return m.setStatus(fmt.Sprintf("%s is still running: wait for it to finish", m.running.title), true)
	}
	a, ok := m.jobsAsker()
	if !ok {
		return m, nil
	}
	ask, why := a.jobsAsk(kind)
	if why != "" {
		return m.setStatus(why, false)
	}
	ask.rate = rate
	ask.timeout = m.opts.FetchTimeout
	if ask.target.All {
		// The plan walks the set.
		ask.timeout = m.opts.ActionTimeout
	}
	return m.planSets(ask)
}

// jobsAsker is the Jobs tab's offer of the jobs R and D take (jobsAsker).
func (m Model) jobsAsker() (jobsAsker, bool) {
	i := m.setsTab()
	if i < 0 {
		return nil, false
	}
	a, ok := m.tabs[i].(jobsAsker)
	return a, ok
}

// jobsAsker is a view whose jobs R and D requeue or delete: the marked
// ones (or the one under the cursor), every one the query matches (A),
// or in the summary every one of the picked type. why says, when it has
// none, why.
// bulkRequeueWhy is what :requeue --rate finds to pace (sets_rate.go).
type jobsAsker interface {
	jobsAsk(kind actionKind) (ask setsAsk, why string)
	bulkRequeueWhy() string
}

// jobsAsk is the plan R or D asks for (jobsAsker); the root sets its
// timeout and rate.
func (v setsView) jobsAsk(kind actionKind) (setsAsk, string) {
	action := reaper.JobsRequeue
	if kind == actionJobsDelete {
		action = reaper.JobsDelete
	}
	var t reaper.JobsTarget
	var what string
	switch {
	case v.markAll && !v.showSummary:
		// Every member the query matches (A): the plan walks the set as
		// the command line's --where does.
		t = v.queryTarget()
		what = "all " + strconv.FormatInt(v.total, 10) + " matching"
		if v.jobFilter != "" {
			what += " " + textsafe.Clean(v.jobFilter)
		}
	case v.showSummary:
		// Every job of the picked type: the plan scans the set.
		name, ok := v.summaryPick()
		if !ok {
			return setsAsk{}, "select a job type in the summary"
		}
		// The jobs the summary counted: of the picked type, and of the
		// query it was of.
		t = reaper.JobsTarget{Set: v.set, All: true, Job: name}
		what = "every " + textsafe.Clean(name) + " job in " + string(v.set)
		if !v.summary.query.Empty() && v.summary.where != jobQuery(name) {
			t.Query = v.summary.query
			what += " matching " + textsafe.Clean(v.summary.where)
		}
	default:
		jobs := v.targets()
		if len(jobs) == 0 {
			return setsAsk{}, "no job selected"
		}
		t = jobsTarget(v.set, jobs)
		what = plural(len(jobs), "job", "jobs")
	}
	return setsAsk{kind: kind, action: action, target: t, what: what}, ""
}

// planSets reads the plan asked for; onSetsPlan opens its dialog.
func (m Model) planSets(ask setsAsk) (Model, tea.Cmd) {
	m.actionSeq++
	seq := m.actionSeq
	m, clear := m.setStatus(fmt.Sprintf("planning the %s of %s…", ask.action, ask.what), false)
	actor := m.wr.Jobs
	plan := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), ask.timeout)
		defer cancel()
		p, err := actor.PlanJobs(ctx, ask.action, ask.target)
		if ask.action == reaper.JobsRequeue && !ask.target.Force &&
			(errors.Is(err, reaper.ErrUnserved) || err == nil && p.Total == 0 && p.SkippedUnserved() > 0) {
			// Nothing runs without Force: the plan shown is the one F
			// would run, as a dry run of the command line shows it.
			forced := ask.target
			forced.Force = true
			if fp, ferr := actor.PlanJobs(ctx, ask.action, forced); ferr == nil && fp.Total > 0 {
				fp.Unforced("y does not requeue them; F pushes them anyway")
				return setsPlanMsg{seq: seq, kind: ask.kind, plan: fp, ask: ask, unforced: true}
			}
		}
		return setsPlanMsg{seq: seq, kind: ask.kind, plan: p, err: err, ask: ask}
	}
	return m, tea.Batch(clear, plan)
}

// onSetsPlan opens the dialog with a plan read, unless the operator has
// moved on (another plan asked for, a dialog open, an action running).
func (m Model) onSetsPlan(msg setsPlanMsg) (Model, tea.Cmd) {
	if msg.seq != m.actionSeq || m.dialog != nil || m.running != nil {
		return m, nil
	}
	if msg.plan.Action == reaper.JobsRequeue && msg.plan.Target.All {
		msg.plan.Rate = msg.ask.rate
	}
	if msg.unforced {
		// No live pool serves them: the plan F would run is shown, y
		// does nothing, and F asks for the requeue anyway.
		forced := msg.ask
		forced.target.Force = true
		forced.what += ", no live pool serving them"
		return m.openDialog(confirmDialog{
			action:  jobsAction(msg.plan, m.wr.Jobs),
			blocked: "no live pool serves " + textsafe.Clean(strings.Join(msg.plan.Unserved, ", ")) + ": requeued, they wait until one starts",
			alt: &dialogChoice{
				binding: m.keys.get(actions.ForceRequeue),
				run:     func(m Model) (Model, tea.Cmd) { return m.planSets(forced) },
			},
		}), nil
	}
	if msg.err != nil {
		return m.setStatus("not planned: "+oneLine(msg.err.Error()), true)
	}
	if msg.plan.Total == 0 {
		return m.setStatus(fmt.Sprintf("nothing to %s: no job left that the plan would take", msg.plan.Action), false)
	}
	return m.openDialog(confirmDialog{action: jobsAction(msg.plan, m.wr.Jobs)}), nil
}

// jobsAction turns a job plan into an action.
func jobsAction(plan reaper.JobsPlan, a JobsActor) action {
	set := string(plan.Target.Set)
	verb, doing := "Delete", "deleting"
	if plan.Action == reaper.JobsRequeue {
		verb, doing = "Requeue", "requeueing"
		if plan.Target.Set != model.SetDead {
			verb, doing = "Run now", "running now"
		}
	}
	switch {
	case plan.Target.All && !plan.Target.Query.Empty():
		set += " (all matching " + textsafe.Clean(plan.Target.Query.Text) + ")"
	case plan.Target.All && plan.Target.Job == "":
		set += " (every job)"
	case plan.Target.All:
		set += " (every " + textsafe.Clean(plan.Target.Job) + " job)"
	}
	running := fmt.Sprintf("%s %s", doing, plural64(plan.Total, "job", "jobs"))
	if plan.Rate > 0 {
		running += fmt.Sprintf(" at %d/s", plan.Rate)
	}
	act := action{
		kind:    actionKind(reaper.JobsAuditAction(plan.Action)),
		title:   fmt.Sprintf("%s %s from %s?", verb, plural64(plan.Total, "job", "jobs"), set),
		body:    planLines(func(w io.Writer) { reaper.RenderJobsPlan(w, plan) }),
		running: running,
		targets: reaper.JobsAuditTargets(plan.Target),
		total:   plan.Total,
		// A bulk action stops between two script calls on esc or ctrl+c.
		stoppable: plan.Target.All,
	}
	if plan.Action == reaper.JobsRequeue && plan.Target.All {
		// A bulk requeue takes a rate in its dialog (sets_rate.go).
		act.rate = plan.Rate
		act.rerate = func(n int) action {
			p := plan
			p.Rate = n
			return jobsAction(p, a)
		}
	}
	// The command line's targets, cleaned: the screen's audit entries hold
	// no byte from Redis raw.
	for i, t := range act.targets {
		act.targets[i] = textsafe.Clean(t)
	}
	act.run = func(ctx context.Context, progress func(moved, total int64)) (actionOutcome, error) {
		res, err := a.ExecuteJobs(ctx, plan, reaper.JobsProgress(progress))
		out := summarizeJobs(plan, res)
		if err != nil && errors.Is(err, context.Canceled) {
			// Stopped by the operator: what moved stays moved, the rest
			// stays where it was.
			left := max(plan.Total-res.Done-res.GoneCount-res.RescoredCount, 0)
			out.summary = fmt.Sprintf("stopped: %d of %d jobs done, %d left; the same action again finishes it", res.Done, plan.Total, left)
			out.failed = true
			return out, nil
		}
		return out, err
	}
	return act
}

// summarizeJobs puts a job action's result in words: the command line's
// result text on one line.
func summarizeJobs(plan reaper.JobsPlan, res reaper.JobsResult) actionOutcome {
	var b strings.Builder
	reaper.RenderJobsResult(&b, plan.Action, res)
	var parts []string
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, textsafe.Clean(l))
		}
	}
	return actionOutcome{
		summary: strings.Join(parts, "; "),
		moved:   res.Done,
		failed:  res.GoneCount > 0 || res.RescoredCount > 0,
		journal: res.Journal,
	}
}
