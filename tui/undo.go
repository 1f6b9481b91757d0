package tui

// This file owns U, the undo of an action of the history: the plan is
// read (reaper.PlanUndo, which refuses reaps, orphan requeues, lock
// repairs and undos with the reason), shown as `workq-tui undo` prints it
// and run on 'y' as every action is: progress, one audit line naming the
// undo's journal, a refresh (the history keeps its cursor).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/reaper"
)

// Undoer plans and runs the undo of an action of the journal.
type Undoer interface {
	// PlanUndo reads the journal of action id and plans its undo; an
	// action that cannot be undone is refused with reaper.ErrUndoRefused
	// and the reason.
	PlanUndo(ctx context.Context, id string) (reaper.UndoPlan, error)
	// Undo puts back what plan lists, journalled as an action of its own
	// whose ID it returns.
	Undo(ctx context.Context, plan reaper.UndoPlan, progress reaper.UndoProgress) (res reaper.UndoResult, journalID string, err error)
}

const actionUndo actionKind = "undo"

// undoPlanMsg is a plan read for U's dialog.
type undoPlanMsg struct {
	seq  int
	plan reaper.UndoPlan
	err  error
}

// openUndo reads the plan of the undo of a; the dialog opens when it
// arrives. Nothing is written before 'y'.
func (m Model) openUndo(a journal.Summary) (Model, tea.Cmd) {
	if m.running != nil {
		return m.setStatus(fmt.Sprintf("%s is still running: wait for it to finish", m.running.title), true)
	}
	m.actionSeq++
	seq := m.actionSeq
	m, clear := m.setStatus("planning the undo of "+textsafe.Clean(a.ID)+"…", false)
	u, id, timeout := m.wr.Undo, a.ID, m.opts.ActionTimeout
	plan := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		p, err := u.PlanUndo(ctx, id)
		return undoPlanMsg{seq: seq, plan: p, err: err}
	}
	return m, tea.Batch(clear, plan)
}

// onUndoPlan opens the dialog with a plan read, unless the operator has
// moved on (another plan asked for, a dialog open, an action running).
func (m Model) onUndoPlan(msg undoPlanMsg) (Model, tea.Cmd) {
	if msg.seq != m.actionSeq || m.dialog != nil || m.running != nil {
		return m, nil
	}
	switch {
	case errors.Is(msg.err, reaper.ErrUndoRefused):
		return m.setStatus("undo refused: "+oneLine(msg.err.Error()), true)
	case msg.err != nil:
		return m.setStatus("not planned: "+oneLine(msg.err.Error()), true)
	case len(msg.plan.Items) == 0:
		return m.setStatus(nothingToUndo(msg.plan), false)
	}
	a := undoAction(msg.plan, m.wr.Undo)
	if m.opts.Target != "" {
		a.title = oneLine(m.opts.Target) + ": " + a.title
	}
	return m.openDialog(confirmDialog{action: a}), nil
}

// undoAction turns an undo plan into an action.
func undoAction(plan reaper.UndoPlan, u Undoer) action {
	h := plan.Of.Header
	n := int64(len(plan.Items))
	a := action{
		kind:    actionUndo,
		title:   fmt.Sprintf("Undo %s: put back %s?", textsafe.Clean(h.ID), plural64(n, "item", "items")),
		body:    planLines(func(w io.Writer) { reaper.RenderUndoPlan(w, plan) }),
		running: "undoing " + textsafe.Clean(h.ID),
		targets: []string{textsafe.Clean(h.ID)},
		total:   n,
	}
	a.run = func(ctx context.Context, progress func(done, total int64)) (actionOutcome, error) {
		res, id, err := u.Undo(ctx, plan, reaper.UndoProgress(progress))
		out := summarizeUndo(res)
		out.journal = id
		return out, err
	}
	return a
}

// summarizeUndo is the first line of the undo's result, as the command
// line prints it; items that moved on make it a failure (the command line
// exits 1).
func summarizeUndo(res reaper.UndoResult) actionOutcome {
	lines := planLines(func(w io.Writer) { reaper.RenderUndoResult(w, res) })
	return actionOutcome{
		summary: strings.TrimSuffix(lines[0], "."),
		moved:   res.Restored,
		failed:  res.MovedOn > 0,
	}
}

// nothingToUndo says why a plan puts nothing back: the plan's counts, on
// one line.
func nothingToUndo(plan reaper.UndoPlan) string {
	lines := planLines(func(w io.Writer) { reaper.RenderUndoPlan(w, plan) })
	var parts []string
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "to put back:") && l != "Nothing to put back." {
			parts = append(parts, l)
		}
	}
	text := "nothing to put back for " + textsafe.Clean(plan.Of.Header.ID)
	if len(parts) > 0 {
		text += ": " + strings.Join(parts, "; ")
	}
	return text
}
