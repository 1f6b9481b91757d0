package cli

// This file owns the undo command: read an action's journal, plan its
// reverse, show it, confirm, put back what is still where the action left
// it, show the result, one audit line.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func undoCommand() command {
	return command{
		name:    "undo",
		args:    "[ACTION_ID]",
		summary: "put back what a write changed (the last one of this target and namespace by default)",
		help: `Put back what an action changed, from its journal (` + "`workq-tui history`" + ` lists
them; without ACTION_ID the last action of this Redis and namespace that is
not itself an undo; when that one is undone already, nothing is planned and
the error says so: give its ID to plan it again). Each item goes back only if it is still where the
action left it, checked in the script that moves it: a requeued job still in
its queue with the exact bytes it was pushed with goes back into its set at
its old score with its old bytes; a deleted job comes back, with its unique
key when the key is absent and its time to live has not run out; a pause is
lifted, an unpause put back. Items that moved on (taken by a worker, changed
since) are counted, listed and left alone. Running undo again finishes an
undo that was stopped, and changes nothing once all is back. Reaps, orphan
requeues and lock repairs are refused (they repaired broken state), and so
is the undo of an undo (run the action again instead), and so is a journal
changed after it was written, one not the user's own, or one naming a key
outside the namespace.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &undoCmd{}
			c.target.addFlags(fs)
			c.write.addFlags(fs)
			fs.IntVar(&c.batch, "batch", reaper.DefaultBatch, "put back at most `N` items per atomic script call")
			fs.BoolVar(&c.wide, "wide", false, "print the plan's and the result's lines whole (they fit 80 columns without it)")
			c.audit.addFlags(fs)
			return c
		},
	}
}

type undoCmd struct {
	target
	write writeFlags
	audit auditFlag
	batch int
	wide  bool
}

func (c *undoCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	if len(args) > 1 {
		return usageErrorf("undo takes at most one ACTION_ID")
	}
	if c.batch < 1 {
		return usageErrorf("--batch must be at least 1")
	}
	log, err := beginWrite(e, &c.target, "undo", c.write, c.audit)
	if err != nil {
		return err
	}
	dir, err := c.audit.journalDir(e)
	if err != nil {
		return err
	}
	d, stop, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer stop()
	a, release, err := c.pick(e, dir, args)
	if err != nil {
		return err
	}
	defer release()
	if a.Altered != "" {
		return localErrorf("undo refused: the journal %s was changed after it was written (%s): nothing put back; `%s history %s` shows what it holds",
			textsafe.Clean(dir.File(a.Header.ID)), textsafe.Clean(a.Altered), c.audit.commandPrefix(&c.target), a.Header.ID)
	}
	if a.Damage != "" {
		fmt.Fprintf(e.stderr, "warning: journal %s: %s\n", textsafe.Clean(a.Header.ID), textsafe.Clean(a.Damage))
	}
	conn, err := d.Dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	plan, err := reaper.PlanUndo(ctx, conn, redisq.NewKeys(c.namespace), a)
	if errors.Is(err, reaper.ErrUndoRefused) {
		return localErrorf("undo refused: %s; `%s history %s` shows its journal", textsafe.Clean(err.Error()), c.audit.commandPrefix(&c.target), a.Header.ID)
	}
	if err != nil {
		return fmt.Errorf("undo %s: %w", textsafe.Clean(a.Header.ID), err)
	}
	printFitted(e.stdout, c.wide, func(w io.Writer) { reaper.RenderUndoPlan(w, plan) })
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	if len(plan.Items) == 0 {
		if plan.MovedOn > 0 {
			return localErrorf("undo %s: nothing put back: %s moved on since the action (see above)", textsafe.Clean(a.Header.ID), jobsPlural(plan.MovedOn, "item"))
		}
		return nil
	}
	question := fmt.Sprintf("Undo action %s (%s): put back %s?", textsafe.Clean(a.Header.ID), textsafe.Clean(a.Header.Command), jobsPlural(int64(len(plan.Items)), "item"))
	if err := c.write.confirm(e, question, "undo"); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	w, err := log.startJournal(journal.OpUndo, "undo "+a.Header.ID, []string{a.Header.ID}, a.Header.ID)
	if err != nil {
		return err
	}
	progress := progressPrinter(e.stderr, "put back")
	res, execErr := reaper.NewUndoer(c.batch).Execute(ctx, conn, plan, w, reaper.UndoProgress(progress))
	result := resultText(func(w io.Writer) { reaper.RenderUndoResult(w, res) })
	execErr = endJournal(e.stdout, log.prefix, w, res.Restored, result, execErr)
	printFitted(e.stdout, c.wide, func(w io.Writer) { reaper.RenderUndoResult(w, res) })
	if err := log.record("undo", []string{a.Header.ID}, res.Restored, result, execErr); err != nil {
		return err
	}
	if moved := res.MovedOn; moved > 0 {
		return localErrorf("undo %s: %s of %d not put back: they moved on since the action (see above)", textsafe.Clean(a.Header.ID), jobsPlural(moved, "item"), plan.MovedOn+int64(len(plan.Items)))
	}
	return nil
}

// pick reads the action to undo: the one given, else the last of this
// target and namespace that is not an undo. Its journal is held (kept from
// pruning, even by the journal of this undo) until release is called.
func (c *undoCmd) pick(e env, dir journal.Dir, args []string) (*journal.Action, func(), error) {
	acts, bad, err := dir.Skims()
	if err != nil {
		return nil, nil, localErrorf("undo: %w", err)
	}
	var id string
	if len(args) == 1 {
		id = args[0]
	} else {
		for _, b := range bad {
			fmt.Fprintf(e.stderr, "warning: %s\n", textsafe.Clean(b.Error()))
		}
		var last *journal.Action
		for i := len(acts) - 1; i >= 0; i-- {
			if sameTarget(acts[i], &c.target) && acts[i].Header.Op != journal.OpUndo {
				last = acts[i]
				break
			}
		}
		if last == nil {
			return nil, nil, localErrorf("undo: no action of namespace %s on %s in the journal %s", textsafe.Clean(c.namespace), textsafe.Clean(c.address()), textsafe.Clean(dir.Path))
		}
		// The last action, once undone, is not planned again, and no older
		// one is picked instead: undo run twice never undoes a second
		// action the operator did not name.
		if by := undoneBy(last, acts); by != "" {
			prefix := c.audit.commandPrefix(&c.target)
			return nil, nil, localErrorf("undo: the last action, %s (%s), is already undone by %s: nothing planned; `%s undo %s` plans it again, `%s history` lists the others",
				last.Header.ID, textsafe.Clean(last.Header.Command), by, prefix, last.Header.ID, prefix)
		}
		id = last.Header.ID
	}
	release, err := dir.Hold(id)
	switch {
	case errors.Is(err, journal.ErrNotFound):
		return nil, nil, localErrorf("action %s is not in the journal %s (`workq-tui history` lists them)", textsafe.Clean(strconv.QuoteToASCII(id)), textsafe.Clean(dir.Path))
	case errors.Is(err, journal.ErrInUse):
		return nil, nil, localErrorf("undo refused: action %s: %w; undo it once it has ended", textsafe.Clean(id), journal.ErrInUse)
	case err != nil:
		return nil, nil, localErrorf("undo: %s", textsafe.Clean(err.Error()))
	}
	a, err := readAction(dir, id, &c.target)
	if err != nil {
		release()
		return nil, nil, err
	}
	if by := undoneBy(a, acts); by != "" {
		fmt.Fprintf(e.stdout, "Action %s is already undone by %s: this plan is of what is still where it left it.\n", a.Header.ID, by)
	}
	return a, release, nil
}

// undoneBy is the ID of the undo that undid a ("" when none did), as the
// history's state says it (journal.State).
func undoneBy(a *journal.Action, all []*journal.Action) string {
	_, by, ok := strings.Cut(journal.State(a, all), "undone by ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(strings.SplitN(by, ",", 2)[0])
}

// resultOf is what render writes.
func resultOf(render func(io.Writer)) string {
	var b strings.Builder
	render(&b)
	return b.String()
}
