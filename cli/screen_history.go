package cli

// This file owns the screen's history (u) and undo (U): the same journal,
// read and put back the way the history and undo commands do.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// errNoJournal: the screen has no audit log path, so no journal either.
var errNoJournal = errors.New("no journal: the screen has no audit log file (give --audit-log)")

// screenHistory reads the journal of target t (dir; none when the screen
// has no audit log path).
type screenHistory struct {
	dir journal.Dir
	t   *target
}

// screenHistoryOf is the history of t in the journal beside auditLog.
func screenHistoryOf(auditLog string, t *target) screenHistory {
	h := screenHistory{t: t}
	if auditLog != "" {
		h.dir = journal.Dir{Path: journal.DirBeside(auditLog)}
	}
	return h
}

func (h screenHistory) History(context.Context) (tui.HistoryList, error) {
	if h.dir.Path == "" {
		return tui.HistoryList{}, errNoJournal
	}
	rows, bad, err := targetHistory(h.dir, h.t)
	if err != nil {
		return tui.HistoryList{}, err
	}
	l := tui.HistoryList{Dir: h.dir.Path}
	for i := len(rows) - 1; i >= 0; i-- {
		l.Actions = append(l.Actions, rows[i])
	}
	for _, b := range bad {
		l.Warnings = append(l.Warnings, textsafe.Clean(b.Error()))
	}
	return l, nil
}

func (h screenHistory) HistoryAction(_ context.Context, id string) (*journal.Action, error) {
	if h.dir.Path == "" {
		return nil, errNoJournal
	}
	return readAction(h.dir, id, h.t)
}

// screenUndoer plans undos from h and runs them on pool, journalled in j.
type screenUndoer struct {
	h     screenHistory
	pool  *redis.Pool
	batch int
	j     *screenJournal
}

func (u screenUndoer) PlanUndo(ctx context.Context, id string) (reaper.UndoPlan, error) {
	a, err := u.h.HistoryAction(ctx, id)
	if err != nil {
		return reaper.UndoPlan{}, err
	}
	c, err := u.pool.GetContext(ctx)
	if err != nil {
		return reaper.UndoPlan{}, fmt.Errorf("undo %s: %w", id, err)
	}
	defer c.Close()
	plan, err := reaper.PlanUndo(ctx, c, redisq.NewKeys(u.h.t.namespace), a)
	if err != nil && !errors.Is(err, reaper.ErrUndoRefused) {
		return plan, fmt.Errorf("undo %s: %w", id, err)
	}
	return plan, err
}

func (u screenUndoer) Undo(ctx context.Context, plan reaper.UndoPlan, progress reaper.UndoProgress) (reaper.UndoResult, string, error) {
	if u.j == nil {
		return reaper.UndoResult{}, "", fmt.Errorf("undo: nothing changed: %w", errNoJournal)
	}
	id := plan.Of.Header.ID
	// Held while the undo runs: the undo's own journal cannot prune it.
	release, err := u.h.dir.Hold(id)
	if err != nil {
		return reaper.UndoResult{}, "", fmt.Errorf("undo %s: nothing changed: %w", id, err)
	}
	defer release()
	w, err := u.j.createUndo(journal.OpUndo, "screen undo "+id, []string{id}, id)
	if err != nil {
		return reaper.UndoResult{}, "", err
	}
	c, err := u.pool.GetContext(ctx)
	if err != nil {
		return reaper.UndoResult{}, w.ID(), closeScreenJournal(w, 0, "", fmt.Errorf("undo %s: nothing changed: %w", id, err))
	}
	defer c.Close()
	res, execErr := reaper.NewUndoer(u.batch).Execute(ctx, c, plan, w, progress)
	result := resultText(func(w io.Writer) { reaper.RenderUndoResult(w, res) })
	return res, w.ID(), closeScreenJournal(w, res.Restored, result, execErr)
}

// auditPathOf is the file of the screen's audit log ("" when it records
// elsewhere, as in tests that keep the lines in memory).
func auditPathOf(a tui.Auditor) string {
	if f, ok := a.(*audit.File); ok {
		return f.Path
	}
	return ""
}
