package cli

// This file gives the screen's job detail its edit and duplicate (e and
// d): the operator's editor, and the plans and script calls of jobs SET
// edit and duplicate, journalled beside the audit log like the command's.

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/editor"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// screenEditor is the screen's JobEditor, journalled in j (not when j is
// nil); getenv finds the editor.
type screenEditor struct {
	pool   *redis.Pool
	keys   redisq.Keys
	j      *screenJournal
	getenv func(string) string
}

func (s screenEditor) OpenEditor(text []byte) (*editor.Session, error) {
	getenv := s.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return editor.Open(getenv, "args.json", text)
}

func (s screenEditor) PlanEdit(ctx context.Context, set model.SetName, ref reaper.JobRef, args []byte, requeue bool) (reaper.EditPlan, error) {
	c, err := s.pool.GetContext(ctx)
	if err != nil {
		return reaper.EditPlan{}, fmt.Errorf("plan the edit: %w", err)
	}
	defer c.Close()
	return reaper.PlanEdit(ctx, c, s.keys, set, ref, args, requeue)
}

func (s screenEditor) PlanDuplicate(ctx context.Context, set model.SetName, ref reaper.JobRef) (reaper.EditPlan, error) {
	c, err := s.pool.GetContext(ctx)
	if err != nil {
		return reaper.EditPlan{}, fmt.Errorf("plan the copy: %w", err)
	}
	defer c.Close()
	return reaper.PlanDuplicate(ctx, c, s.keys, set, ref)
}

// noJournal is the journal of a screen without one: it keeps nothing.
type noJournal struct{}

func (noJournal) Intent(journal.Intent) (int, error) { return 0, nil }
func (noJournal) Commit(int, journal.Commit) error   { return nil }

// ExecuteEdit runs plan, journalled when the screen has a journal.
func (s screenEditor) ExecuteEdit(ctx context.Context, plan reaper.EditPlan) (reaper.EditResult, string, error) {
	op, verb := journal.OpEdit, "edit"
	if plan.Mode == reaper.EditCopy {
		op, verb = journal.OpDuplicate, "duplicate"
	}
	c, err := s.pool.GetContext(ctx)
	if err != nil {
		return reaper.EditResult{}, "", fmt.Errorf("%s: %w", verb, err)
	}
	defer c.Close()
	if s.j == nil {
		res, err := reaper.ExecuteEdit(ctx, c, plan, noJournal{})
		return res, "", err
	}
	w, err := s.j.create(op, "screen jobs "+string(plan.Job.Set)+" "+verb, []string{plan.Job.Job.ID})
	if err != nil {
		return reaper.EditResult{}, "", err
	}
	res, execErr := reaper.ExecuteEdit(ctx, c, plan, w)
	done := int64(0)
	if res.Done() {
		done = 1
	}
	result := resultText(func(w io.Writer) { reaper.RenderEditResult(w, plan, res) })
	return res, w.ID(), closeScreenJournal(w, done, result, execErr)
}
