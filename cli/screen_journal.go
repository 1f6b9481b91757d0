package cli

// This file owns the journal of the screen's job actions and pauses: the
// same journal as the commands' (beside the audit log), so that `history`
// lists them and `undo` puts them back. The repairs' journal is in
// screen_repairs.go, the history and undo in screen_history.go.

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/tui"
)

// screenJournal starts the journals of one target's screen actions.
type screenJournal struct {
	dir                            journal.Dir
	user, address, name, namespace string
}

// newScreenJournal is the journal beside the screen's audit log (nil when
// the audit log is not a file, as in tests that record lines in memory).
func newScreenJournal(auditor tui.Auditor, t *target) *screenJournal {
	f, ok := auditor.(*audit.File)
	if !ok || f.Path == "" {
		return nil
	}
	var name string
	if t.from != nil {
		name = t.from.Name
	}
	return &screenJournal{dir: journal.Dir{Path: journal.DirBeside(f.Path)}, user: f.User, address: t.address(), name: name, namespace: t.namespace}
}

func (s *screenJournal) create(op, command string, targets []string) (*journal.Writer, error) {
	return s.createUndo(op, command, targets, "")
}

// createUndo is create with the ID of the action an undo puts back.
func (s *screenJournal) createUndo(op, command string, targets []string, undoOf string) (*journal.Writer, error) {
	w, err := s.dir.Create(journal.Header{User: s.user, Address: s.address, Target: s.name, Namespace: s.namespace, Op: op, Command: command, Targets: targets, UndoOf: undoOf})
	if err != nil {
		return nil, fmt.Errorf("journal: nothing changed: %w", err)
	}
	return w, nil
}

// journalledScreenJobs runs the Jobs view's actions with their journal.
type journalledScreenJobs struct {
	screenJobs
	batch int
	j     *screenJournal
}

// screenJobsJournalled is ScreenJobs with each execution journalled in j
// (none when j is nil).
func screenJobsJournalled(pool *redis.Pool, namespace string, batch int, j *screenJournal) tui.JobsActor {
	sj := ScreenJobs(pool, namespace, batch)
	if j == nil {
		return sj
	}
	return journalledScreenJobs{screenJobs: sj.(screenJobs), batch: batch, j: j}
}

func (s journalledScreenJobs) ExecuteJobs(ctx context.Context, p reaper.JobsPlan, progress reaper.JobsProgress) (reaper.JobsResult, error) {
	c, err := s.pool.GetContext(ctx)
	if err != nil {
		return reaper.JobsResult{}, fmt.Errorf("%s: %w", p.Action, err)
	}
	defer c.Close()
	read, err := s.pool.GetContext(ctx)
	if err != nil {
		return reaper.JobsResult{}, fmt.Errorf("%s: %w", p.Action, err)
	}
	defer read.Close()
	op, where := journal.OpDelete, string(p.Target.Set)
	switch {
	case p.Action == reaper.JobsRequeue:
		op = journal.OpRequeue
	case p.Target.Set == "":
		op, where = journal.OpQueueDelete, "queue"
	}
	w, err := s.j.create(op, "screen jobs "+where+" "+string(p.Action), nil)
	if err != nil {
		return reaper.JobsResult{}, err
	}
	x := reaper.NewJobsExecutor(p.Namespace, s.batch).WithJournal(reaper.NewJobsJournal(w, read))
	res, execErr := x.Execute(ctx, c, p, progress)
	res.Journal = w.ID()
	return res, closeScreenJournal(w, res.Done, "", execErr)
}

// journalledPauser runs the screen's pauses with their journal.
type journalledPauser struct {
	pool *redis.Pool
	j    *screenJournal
}

// screenPauser is the screen's Pauser, journalled in j (not when j is nil).
func screenPauser(pool *redis.Pool, j *screenJournal) tui.Pauser {
	if j == nil {
		return reaper.NewPauser(pool)
	}
	return journalledPauser{pool: pool, j: j}
}

func (p journalledPauser) Pause(ctx context.Context, plan reaper.PausePlan) (reaper.PauseResult, error) {
	res := reaper.PauseResult{Pause: plan.Pause}
	c, err := p.pool.GetContext(ctx)
	if err != nil {
		return res, fmt.Errorf("%s: %w", plan.Verb(), err)
	}
	defer c.Close()
	op := journal.OpUnpause
	if plan.Pause {
		op = journal.OpPause
	}
	w, err := p.j.create(op, "screen "+plan.Verb(), plan.Names())
	if err != nil {
		return res, err
	}
	res, execErr := reaper.ExecutePauseJournal(ctx, c, plan, w)
	res.Journal = w.ID()
	return res, closeScreenJournal(w, int64(res.Changed()), "", execErr)
}

// closeScreenJournal ends and closes a screen action's journal.
func closeScreenJournal(w *journal.Writer, done int64, result string, execErr error) error {
	e := journal.End{Done: done, Result: result}
	if execErr != nil {
		e.Error = execErr.Error()
	}
	err := w.End(e)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil && execErr == nil {
		return fmt.Errorf("done, but the journal was not closed: %w", err)
	}
	return execErr
}
