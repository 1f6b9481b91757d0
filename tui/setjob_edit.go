package tui

// This file owns e and d on a job's detail in the Jobs view: e suspends
// the screen for the operator's editor on the job's args (as lazygit does,
// through tea.ExecProcess), then shows the edit's plan, with its diff, in
// the confirm dialog, where y saves the new args and R saves them and moves
// the job onto its queue (planned again, and shown, first); d plans a copy
// of the job with a new id pushed onto its queue. y runs the plan's one
// checked script call.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/editor"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

const (
	actionJobsEdit      actionKind = "jobs-edit"
	actionJobsDuplicate actionKind = "jobs-duplicate"
)

// JobEditor edits a job set member's args and duplicates members (an
// Actor may offer it): it opens the operator's editor on a text, plans
// and runs edits and copies, journalled.
type JobEditor interface {
	OpenEditor(text []byte) (*editor.Session, error)
	// PlanEdit plans new args for the member ref finds in set; requeue
	// moves the edited job onto its queue as well.
	PlanEdit(ctx context.Context, set model.SetName, ref reaper.JobRef, args []byte, requeue bool) (reaper.EditPlan, error)
	PlanDuplicate(ctx context.Context, set model.SetName, ref reaper.JobRef) (reaper.EditPlan, error)
	ExecuteEdit(ctx context.Context, plan reaper.EditPlan) (reaper.EditResult, string, error)
}

// jobEditedMsg is the editor's end: the session to read and close, the
// job it edited, and the editor's error.
type jobEditedMsg struct {
	seq     int
	session *editor.Session
	set     model.SetName
	job     model.SetJob
	err     error
}

// editPlanMsg is an edit's or duplicate's plan read for the dialog.
type editPlanMsg struct {
	seq  int
	kind actionKind
	plan reaper.EditPlan
	err  error
}

// matchesAlways is key.Matches with b enabled.
func matchesAlways(msg tea.KeyMsg, b key.Binding) bool {
	b.SetEnabled(true)
	return key.Matches(msg, b)
}

// isJobEditKey is whether msg is e or d as k binds them.
func isJobEditKey(msg tea.KeyMsg, k keyMap) bool {
	return matchesAlways(msg, k.get(actions.SetsEdit)) || matchesAlways(msg, k.get(actions.SetsDuplicate))
}

// onJobEditKey is e or d on a job's detail.
func (m Model) onJobEditKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	v, ok := m.top().(setMember)
	var set model.SetName
	var job model.SetJob
	if ok {
		set, job = v.member()
	}
	switch {
	case !ok:
		return m, nil
	case m.opts.ReadOnly:
		return m.setStatus("read-only: edit and duplicate are disabled", false)
	case m.wr.Edit == nil:
		return m.setStatus("edit and duplicate are not available here", false)
	case m.running != nil:
		return m.setStatus(fmt.Sprintf("%s is still running: wait for it to finish", m.running.title), true)
	case job.Job == nil || job.Job.Name == "":
		return m.setStatus("not a job with a name: it cannot be edited or copied", true)
	}
	m.actionSeq++
	seq, ed, ref := m.actionSeq, m.wr.Edit, reaper.JobRef{ID: job.Job.ID, Score: job.ScoreText}
	if matchesAlways(msg, m.keys.get(actions.SetsDuplicate)) {
		m, clear := m.setStatus("planning the copy…", false)
		timeout := m.opts.FetchTimeout
		return m, tea.Batch(clear, func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			p, err := ed.PlanDuplicate(ctx, set, ref)
			return editPlanMsg{seq: seq, kind: actionJobsDuplicate, plan: p, err: err}
		})
	}
	args, err := model.ArgsOf(job.Raw)
	if err != nil {
		return m.setStatus(oneLine(err.Error()), true)
	}
	s, err := ed.OpenEditor(reaper.PrettyArgs(args))
	if err != nil {
		return m.setStatus("edit: "+oneLine(err.Error()), true)
	}
	return m, tea.ExecProcess(s.Cmd, func(err error) tea.Msg {
		return jobEditedMsg{seq: seq, session: s, set: set, job: job, err: err}
	})
}

// onJobEdited reads what the editor left, checks it and asks for the
// plan; a bad text or unchanged args end here, in the status line.
func (m Model) onJobEdited(msg jobEditedMsg) (Model, tea.Cmd) {
	text, readErr := msg.session.Read()
	msg.session.Close()
	switch {
	case msg.err != nil:
		return m.setStatus("editor: "+oneLine(msg.err.Error())+": nothing changed", true)
	case readErr != nil:
		return m.setStatus(oneLine(readErr.Error()), true)
	case msg.seq != m.actionSeq:
		return m, nil
	}
	args, err := model.CompactArgs(text)
	if err != nil {
		return m.setStatus(oneLine(err.Error())+": nothing changed", true)
	}
	return m.planEdit(msg.seq, msg.set, msg.job, args, false)
}

// planEdit asks for the plan of job's new args in set (and of its requeue),
// which must find the job as the editor had it.
func (m Model) planEdit(seq int, set model.SetName, job model.SetJob, args []byte, requeue bool) (Model, tea.Cmd) {
	ed, timeout := m.wr.Edit, m.opts.FetchTimeout
	ref := reaper.JobRef{ID: job.Job.ID, Score: job.ScoreText}
	raw := job.Raw
	m, clear := m.setStatus("planning the edit…", false)
	return m, tea.Batch(clear, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		p, err := ed.PlanEdit(ctx, set, ref, args, requeue)
		if err == nil && string(p.Job.Raw) != string(raw) {
			err = fmt.Errorf("the job changed while its args were edited: %w; edit it again", reaper.ErrEditMoved)
		}
		return editPlanMsg{seq: seq, kind: actionJobsEdit, plan: p, err: err}
	})
}

// onEditPlan opens the dialog with the plan, unless the operator has moved
// on since.
func (m Model) onEditPlan(msg editPlanMsg) (Model, tea.Cmd) {
	if msg.seq != m.actionSeq || m.dialog != nil || m.running != nil {
		return m, nil
	}
	switch {
	case errors.Is(msg.err, reaper.ErrNothingChanged):
		return m.setStatus("nothing changed", false)
	case msg.err != nil:
		return m.setStatus("not planned: "+oneLine(msg.err.Error()), true)
	}
	d := confirmDialog{action: editAction(msg.kind, msg.plan, m.wr.Edit)}
	if msg.kind == actionJobsEdit && msg.plan.Mode == reaper.EditReplace {
		// R: the same args, and the job onto its queue; planned again,
		// so that the dialog shows what the requeue does.
		plan, seq := msg.plan, msg.seq
		b := m.keys.get(actions.SetsRequeue)
		b.SetEnabled(true)
		b.SetHelp(b.Help().Key, "save and requeue")
		d.alt = &dialogChoice{binding: b, run: func(m Model) (Model, tea.Cmd) {
			return m.planEdit(seq, plan.Job.Set, plan.Job, plan.NewArgs, true)
		}}
	}
	return m.openDialog(d), nil
}

// editAction turns an edit's or duplicate's plan into an action.
func editAction(kind actionKind, plan reaper.EditPlan, ed JobEditor) action {
	id := textsafe.Clean(plan.Job.Job.ID)
	title := fmt.Sprintf("Edit the args of job %s in %s?", id, plan.Job.Set)
	running := "editing job " + id
	switch {
	case plan.Mode == reaper.EditRequeue:
		title = fmt.Sprintf("Edit job %s and requeue it onto %s?", id, textsafe.Clean(plan.QueueKey))
		running = "editing and requeueing job " + id
	case kind == actionJobsDuplicate:
		title = fmt.Sprintf("Push a copy of job %s onto %s?", id, textsafe.Clean(plan.QueueKey))
		running = "copying job " + id
	}
	return action{
		kind:    kind,
		title:   title,
		body:    planLines(func(w io.Writer) { reaper.RenderEditPlan(w, plan) }),
		running: running,
		targets: []string{"set=" + string(plan.Job.Set), id},
		total:   1,
		run: func(ctx context.Context, _ func(moved, total int64)) (actionOutcome, error) {
			res, journalID, err := ed.ExecuteEdit(ctx, plan)
			out := actionOutcome{journal: journalID, summary: oneLine(textsafe.Clean(planText(func(w io.Writer) { reaper.RenderEditResult(w, plan, res) })))}
			if res.Done() {
				out.moved = 1
			}
			return out, err
		},
	}
}

// planText is what render writes, its lines joined by "; ".
func planText(render func(io.Writer)) string {
	lines := planLines(render)
	out := ""
	for _, l := range lines {
		if l == "" {
			continue
		}
		if out != "" {
			out += "; "
		}
		out += l
	}
	return out
}
