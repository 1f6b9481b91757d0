package cli

// This file owns the journal of the commands that write: where it is (the
// directory beside the audit log, journal.DirBeside), starting and ending an action's
// journal, and the second connection a journalled job action reads on.

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// journalDir is the journal directory of the audit log a write would use:
// for history and undo, which read it whether or not they write.
func (a auditFlag) journalDir(e env) (journal.Dir, error) {
	d, _, err := a.journalDirs(e)
	return d, err
}

// journalDirs is journalDir and the directory earlier versions used for
// the same audit log ("" when the same): history names it when it holds
// journals the new one does not.
func (a auditFlag) journalDirs(e env) (journal.Dir, string, error) {
	path := a.path
	if path == "" {
		home, _ := os.UserHomeDir()
		p, err := audit.DefaultPath(e.getenv, home)
		if err != nil {
			return journal.Dir{}, "", usageErrorf("%v", err)
		}
		path = p
	}
	return journal.Dir{Path: journal.DirBeside(path), Max: a.journalMax}, journal.LegacyDirBeside(path), nil
}

// startJournal starts the journal of the action about to run: called after
// ready and before the first write, so that no write runs without it. Its
// ID goes on the action's audit line.
func (l *auditLog) startJournal(op, command string, targets []string, undoOf string) (*journal.Writer, error) {
	var name string
	if l.target.from != nil {
		name = l.target.from.Name
	}
	h := journal.Header{User: l.file.User, Address: l.target.address(), Target: name,
		Namespace: l.target.namespace, Op: op, Command: command, Targets: targets, UndoOf: undoOf}
	w, err := l.journal.Create(h)
	if err != nil {
		return nil, localErrorf("journal: nothing changed: %w", err)
	}
	l.journalID = w.ID()
	return w, nil
}

// endJournal closes an action's journal with its outcome and names it on
// out, with the history command (prefix: the command prefix in force with
// its --audit-log) that shows it. It returns execErr, joined with the
// journal's own failure.
func endJournal(out io.Writer, prefix string, w *journal.Writer, done int64, result string, execErr error) error {
	fmt.Fprintf(out, "Journal: action %s (`%s history %s` shows it).\n", w.ID(), prefix, w.ID())
	e := journal.End{Done: done, Result: result}
	if execErr != nil {
		e.Error = execErr.Error()
	}
	err := w.End(e)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	printPruned(out, w)
	switch {
	case err == nil:
		return execErr
	case execErr != nil:
		return fmt.Errorf("%w (and the journal was not closed: %v)", execErr, err)
	}
	return localErrorf("done, but the journal was not closed: %w", err)
}

// printPruned says, on one line, which actions' journals w dropped to keep
// the journal directory within --journal-max.
func printPruned(out io.Writer, w *journal.Writer) {
	if ids := w.Pruned(); len(ids) > 0 {
		fmt.Fprintf(out, "Journal: dropped the journals of %s to keep the directory within --journal-max: %s.\n",
			jobsPlural(int64(len(ids)), "older action"), strings.Join(ids, " "))
	}
}

// dialPair connects once, and gives a second connection on demand (the one
// a journalled job action reads the values before on); done closes both
// (and stops the demo).
func (t *target) dialPair(ctx context.Context) (redis.Conn, func() (redis.Conn, error), func(), error) {
	d, stop, err := t.open(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	conn, err := d.Dial(ctx)
	if err != nil {
		stop()
		return nil, nil, nil, err
	}
	var second redis.Conn
	dial := func() (redis.Conn, error) {
		if second == nil {
			c, err := d.Dial(ctx)
			if err != nil {
				return nil, err
			}
			second = c
		}
		return second, nil
	}
	done := func() {
		if second != nil {
			second.Close()
		}
		conn.Close()
		stop()
	}
	return conn, dial, done, nil
}

// startJobsJournal starts the journal of a job action and gives the
// executor the journal, reading on a second connection.
func startJobsJournal(log *auditLog, op jobsOp, targets []string, second func() (redis.Conn, error), x *reaper.JobsExecutor) (*journal.Writer, *reaper.JobsExecutor, error) {
	read, err := second()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: nothing changed: %w", op.title, err)
	}
	jop := journal.OpDelete
	switch {
	case op.action == reaper.JobsRequeue:
		jop = journal.OpRequeue
	case op.set == "":
		jop = journal.OpQueueDelete
	}
	w, err := log.startJournal(jop, op.title, targets, "")
	if err != nil {
		return nil, nil, err
	}
	return w, x.WithJournal(reaper.NewJobsJournal(w, read)), nil
}

// pauseJournalled runs a pause or unpause plan with its journal.
func pauseJournalled(ctx context.Context, e env, log *auditLog, conns redisq.Conns, plan reaper.PausePlan) (reaper.PauseResult, error) {
	res := reaper.PauseResult{Pause: plan.Pause}
	op := journal.OpUnpause
	if plan.Pause {
		op = journal.OpPause
	}
	w, err := log.startJournal(op, plan.Verb(), plan.Names(), "")
	if err != nil {
		return res, err
	}
	c, err := conns.GetContext(ctx)
	if err != nil {
		return res, endJournal(e.stdout, log.prefix, w, 0, "", fmt.Errorf("%s: %w", plan.Verb(), err))
	}
	defer c.Close()
	res, execErr := reaper.ExecutePauseJournal(ctx, c, plan, w)
	return res, endJournal(e.stdout, log.prefix, w, int64(res.Changed()), "", execErr)
}

// repairJournal is the journal of a reap, orphan requeue or lock repair:
// the values before, on record though undo refuses them.
type repairJournal struct {
	out    io.Writer
	prefix string
	w      *journal.Writer
	seq    int
}

// startRepairJournal starts the journal of a repair and writes the values
// before of what it touches, read on a connection of conns.
func startRepairJournal(ctx context.Context, e env, log *auditLog, conns redisq.Conns, namespace, op, command string, targets []string, scope reaper.RepairScope) (*repairJournal, error) {
	w, err := log.startJournal(op, command, targets, "")
	if err != nil {
		return nil, err
	}
	return beginRepairJournal(ctx, e.stdout, log.prefix, w, conns, namespace, command, scope)
}

// beginRepairJournal writes the values before of what a repair touches to
// its journal w, read on a connection of conns; on failure it closes w,
// nothing changed. out is where endJournal names the journal.
func beginRepairJournal(ctx context.Context, out io.Writer, prefix string, w *journal.Writer, conns redisq.Conns, namespace, command string, scope reaper.RepairScope) (*repairJournal, error) {
	c, err := conns.GetContext(ctx)
	if err != nil {
		return nil, endJournal(out, prefix, w, 0, "", fmt.Errorf("%s: nothing changed: %w", command, err))
	}
	defer c.Close()
	seq, err := reaper.JournalRepair(ctx, c, redisq.NewKeys(namespace), w, scope)
	if err != nil {
		return nil, endJournal(out, prefix, w, 0, "", fmt.Errorf("%s: nothing changed: %w", command, err))
	}
	return &repairJournal{out: out, prefix: prefix, w: w, seq: seq}, nil
}

// finish records the repair's outcome and closes its journal; it returns
// execErr, joined with the journal's own failure.
func (r *repairJournal) finish(done int64, result string, execErr error) error {
	c := journal.Commit{Statuses: []string{result}}
	if execErr != nil {
		c.Error = execErr.Error()
	}
	err := r.w.Commit(r.seq, c)
	execErr = endJournal(r.out, r.prefix, r.w, done, result, execErr)
	if err != nil && execErr == nil {
		return localErrorf("done, but the journal was not written: %w", err)
	}
	return execErr
}
