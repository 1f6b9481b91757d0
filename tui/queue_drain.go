package tui

// This file owns the queue view's query and its writes: '/' filters the
// queue by a query of the Jobs view's language (parseSetsQuery), A marks
// every job it matches, D deletes them and P parks them in the dead set.
// The plan is read from Redis by the drainer the command line's `jobs
// queue JOB delete|park --where` uses (reaper.PlanDrain), shown in the
// confirm dialog, and runs on 'y' as every action does: progress, one
// audit line, the journal, a re-read that keeps the view where it was.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// QueueFilterReader reads one page of the jobs a query matches in a job
// type's queue, in run order; *redisq.Client in the program.
type QueueFilterReader interface {
	QueueFilterPage(ctx context.Context, job string, q *model.Query, offset, limit int) (redisq.QueuePage, error)
}

// QueueDrainer plans and runs the deletes and parks of the jobs a query
// matches in a queue (the program's journals them).
type QueueDrainer interface {
	PlanDrain(ctx context.Context, action reaper.DrainAction, job string, q *model.Query) (reaper.DrainPlan, error)
	ExecuteDrain(ctx context.Context, plan reaper.DrainPlan, progress reaper.JobsProgress) (reaper.DrainResult, error)
}

// queueDrainPlanMsg is a drain plan read for the queue view's dialog.
type queueDrainPlanMsg struct {
	seq  int
	plan reaper.DrainPlan
	err  error
}

// newQueue is the queue view of job, with the reads it needs.
func (m Model) newQueue(job string) queueView { return openQueue(m.openEnv(), job) }

// openQueue is the queue view of job built from e.
func openQueue(e openEnv, job string) queueView {
	q := newQueueView(e.id, job, e.snap, e.keys, e.rd.Queue, e.timeout)
	q.filter, q.walkTimeout = e.rd.QueueFilter, e.actionTimeout
	q.queries, q.queriesFrom, q.now = e.queries, e.queriesFrom, e.now
	return q
}

// takesKey is which keys the queue view takes before the root: every key
// while its query is typed, '/' that opens it, and esc that drops the
// marks, then the query.
func (q queueView) takesKey(msg tea.KeyMsg) bool {
	if q.typing {
		return true
	}
	k := q.keys(q.km)
	return key.Matches(msg, k.get(actions.Filter)) || key.Matches(msg, k.get(actions.Back)) && (q.markAll || q.where != "")
}

// queryKey is a key takesKey took.
func (q queueView) queryKey(msg tea.KeyMsg) (view, tea.Cmd) {
	if q.typing {
		switch msg.Type {
		case tea.KeyEnter:
			q.typing = false
			return q.applyQuery(q.input.Value())
		case tea.KeyEsc:
			q.typing = false
			return q, nil
		}
		q.input = q.input.update(msg)
		return q, nil
	}
	switch {
	case key.Matches(msg, q.km.get(actions.Back)) && q.markAll:
		q.markAll = false
		return q, statusCmd("marks cleared", false)
	case key.Matches(msg, q.km.get(actions.Back)):
		return q.applyQuery("")
	}
	q.typing = true
	q.input = q.input.set(q.where)
	return q, nil
}

// applyQuery filters the queue by text and reads its first page. A bad
// query says why in the status line and keeps the one that was applied:
// nothing is read.
func (q queueView) applyQuery(text string) (view, tea.Cmd) {
	text, err := model.ExpandSaved(strings.TrimSpace(text), q.queries, q.queriesFrom)
	var query *model.Query
	if err == nil {
		query, err = parseSetsQuery(text, q.queryNow())
	}
	if err != nil {
		return q, statusCmd(oneLine(err.Error()), true)
	}
	if query.Empty() {
		query, text = nil, ""
	}
	q.query, q.where, q.markAll = query, text, false
	return q.load(0)
}

// queryNow is the time a query's ages and clock times are read against:
// Redis's clock of the last snapshot, else the screen's.
func (q queueView) queryNow() time.Time {
	if !q.redisTime.IsZero() || q.now == nil {
		return q.redisTime
	}
	return q.now()
}

// drainQuery is the queue's query for A, D and P: its job type, the
// query and its text, and whether A marked what it matches.
func (q queueView) drainQuery() drainQuery {
	return drainQuery{job: q.job, query: q.query, where: q.where, marked: q.markAll}
}

// toggleMarks marks every job the query matches, or takes the mark away.
func (q queueView) toggleMarks() (view, bool) {
	q.markAll = !q.markAll
	return q, q.markAll
}

// queueOpenHint is what A, D and P say outside a queue view.
func (m Model) queueOpenHint(b, verb string) string {
	return b + " " + verb + " in a job type's queue: open one with " + m.keys.get(actions.Enter).Help().Key + " in the Job types view, then type a query with /"
}

// queueMarkAllReason is why A does nothing here.
func (m Model) queueMarkAllReason() string {
	d, ok := m.top().(drainer)
	if !ok {
		return m.queueOpenHint(m.keys.get(actions.QueueMarkAll).Help().Key, "marks the jobs a query matches")
	}
	if d.drainQuery().query.Empty() {
		return m.keys.get(actions.QueueMarkAll).Help().Key + " marks every job the query matches: type a query with /"
	}
	return ""
}

// queueDrainLook is the query D or P (b) acts on here, or why it does
// nothing here.
func (m Model) queueDrainLook(b string, verb string) (actionTarget, string) {
	d, ok := m.top().(drainer)
	if !ok {
		return applies(m.queueOpenHint(b, verb+" the jobs a query matches"))
	}
	q := d.drainQuery()
	switch {
	case q.query.Empty():
		return applies(b + " " + verb + " the jobs a query matches: type a query with /, then mark them with " + m.keys.get(actions.QueueMarkAll).Help().Key)
	case !q.marked:
		return applies(b + " " + verb + " the marked jobs: " + m.keys.get(actions.QueueMarkAll).Help().Key + " marks every job the query matches")
	}
	return actionTarget{drain: q}, ""
}

// toggleQueueMarkAll marks every job the query matches, or takes the mark
// away. The count is the last read's: the plan counts again, from Redis.
func (m Model) toggleQueueMarkAll() (Model, tea.Cmd) {
	d, ok := m.top().(drainer)
	if !ok {
		return m, nil
	}
	v, marked := d.toggleMarks()
	m = m.setTop(v)
	if !marked {
		return m.setStatus("marks cleared", false)
	}
	return m, nil
}

// planQueueDrain reads the plan of D or P; onQueueDrainPlan opens its
// dialog. Nothing is written before 'y'.
func (m Model) planQueueDrain(action reaper.DrainAction, q drainQuery) (Model, tea.Cmd) {
	if m.running != nil {
		return m.setStatus(fmt.Sprintf("%s is still running: wait for it to finish", m.running.title), true)
	}
	m.actionSeq++
	seq := m.actionSeq
	m, clear := m.setStatus(fmt.Sprintf("planning the %s of the jobs of queue %s matching %s…", action, textsafe.Clean(q.job), textsafe.Clean(q.where)), false)
	d, job, query, timeout := m.wr.Drain, q.job, q.query, m.opts.ActionTimeout
	plan := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		p, err := d.PlanDrain(ctx, action, job, query)
		return queueDrainPlanMsg{seq: seq, plan: p, err: err}
	}
	return m, tea.Batch(clear, plan)
}

// onQueueDrainPlan opens the dialog with a plan read, unless the operator
// has moved on (another plan asked for, a dialog open, an action running).
func (m Model) onQueueDrainPlan(msg queueDrainPlanMsg) (Model, tea.Cmd) {
	if msg.seq != m.actionSeq || m.dialog != nil || m.running != nil {
		return m, nil
	}
	if msg.err != nil {
		return m.setStatus("not planned: "+oneLine(msg.err.Error()), true)
	}
	if len(msg.plan.Items) == 0 {
		return m.setStatus(fmt.Sprintf("nothing to %s: no job of queue %s matches %s now", msg.plan.Action,
			textsafe.Clean(msg.plan.Job), textsafe.Clean(msg.plan.Query.Text)), false)
	}
	a := drainAction(msg.plan, m.wr.Drain)
	if m.opts.Target != "" {
		a.title = oneLine(m.opts.Target) + ": " + a.title
	}
	return m.openDialog(confirmDialog{action: a}), nil
}

// drainAction turns a drain plan into an action.
func drainAction(plan reaper.DrainPlan, d QueueDrainer) action {
	verb, doing := "Delete", "deleting"
	if plan.Action == reaper.DrainPark {
		verb, doing = "Park", "parking"
	}
	n := int64(len(plan.Items))
	act := action{
		kind:      actionKind(reaper.DrainAuditAction(plan.Action)),
		title:     fmt.Sprintf("%s %s from queue %s?", verb, plural64(n, "job", "jobs"), textsafe.Clean(plan.Job)),
		body:      planLines(func(w io.Writer) { reaper.RenderDrainPlan(w, plan) }),
		running:   fmt.Sprintf("%s %s", doing, plural64(n, "job", "jobs")),
		targets:   reaper.DrainAuditTargets(plan),
		total:     n,
		stoppable: true,
	}
	for i, t := range act.targets {
		act.targets[i] = textsafe.Clean(t)
	}
	act.run = func(ctx context.Context, progress func(moved, total int64)) (actionOutcome, error) {
		res, err := d.ExecuteDrain(ctx, plan, reaper.JobsProgress(progress))
		out := summarizeDrain(plan, res)
		if err != nil && errors.Is(err, context.Canceled) {
			// Stopped by the operator: what was taken stays taken, the
			// rest stays queued.
			out.summary = fmt.Sprintf("stopped: %d of %d jobs done; the same action again finishes it", res.Done, n)
			if res.Journal != "" {
				out.summary += "; journal " + textsafe.Clean(res.Journal)
			}
			out.failed = true
			return out, nil
		}
		return out, err
	}
	return act
}

// summarizeDrain puts a drain's result in words: the command line's
// result text on one line, and the journal that undo reads.
func summarizeDrain(plan reaper.DrainPlan, res reaper.DrainResult) actionOutcome {
	var b strings.Builder
	reaper.RenderDrainResult(&b, plan.Action, res)
	var parts []string
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l = strings.TrimSuffix(strings.TrimSpace(l), "."); l != "" {
			parts = append(parts, textsafe.Clean(l))
		}
	}
	if res.Journal != "" {
		parts = append(parts, "journal "+textsafe.Clean(res.Journal))
	}
	return actionOutcome{
		summary: strings.Join(parts, "; "),
		moved:   res.Done,
		failed:  res.Gone > 0 || res.Skipped > 0,
		journal: res.Journal,
	}
}
