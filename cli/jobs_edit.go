package cli

// This file owns jobs SET edit ID and jobs SET duplicate ID: the new args
// from the operator's editor (or --args), the plan with its diff, confirm,
// one journalled script call, the result, one audit line.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/editor"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// maxArgsBytes bounds the edited args read from a file or stdin.
const maxArgsBytes = 64 << 20

func (c *jobsCmd) editJob(ctx context.Context, e env, op jobsOp) error {
	if c.argsFile == "-" && !c.write.yes && !c.write.dryRun {
		return usageErrorf("--args - reads the args from stdin, which then cannot answer the prompt: add --yes (or --dry-run)")
	}
	if c.fs.Changed("args") && c.argsFile == "" {
		return usageErrorf("--args needs a FILE, or - for stdin")
	}
	log, err := beginWrite(e, &c.target, op.title, c.write, c.audit)
	if err != nil {
		return err
	}
	conn, _, done, err := c.dialPair(ctx)
	if err != nil {
		return err
	}
	defer done()
	keys := redisq.NewKeys(c.namespace)
	ref := op.refs[0]
	var plan reaper.EditPlan
	if op.edit == "duplicate" {
		plan, err = reaper.PlanDuplicate(ctx, conn, keys, op.set, ref)
	} else {
		plan, err = c.planEdit(ctx, e, conn, keys, op, ref)
		if errors.Is(err, reaper.ErrNothingChanged) {
			fmt.Fprintln(e.stdout, "nothing changed")
			return nil
		}
	}
	if err != nil {
		return editError(op.title, err)
	}
	fmt.Fprint(e.stdout, fitWidth(resultOf(func(w io.Writer) { reaper.RenderEditPlan(w, plan) }), c.wide))
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	id := textsafe.Clean(plan.Job.Job.ID)
	question := fmt.Sprintf("Edit job %s in %s?", id, op.set)
	jop := journal.OpEdit
	switch {
	case op.edit == "duplicate":
		question = fmt.Sprintf("Push a copy of job %s onto %s?", id, textsafe.Clean(plan.QueueKey))
		jop = journal.OpDuplicate
	case c.requeue:
		question = fmt.Sprintf("Edit job %s and requeue it onto %s?", id, textsafe.Clean(plan.QueueKey))
	}
	if err := c.write.confirm(e, question, op.edit); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	targets := []string{plan.Job.Job.ID}
	w, err := log.startJournal(jop, op.title, targets, "")
	if err != nil {
		return err
	}
	res, execErr := reaper.ExecuteEdit(ctx, conn, plan, w)
	result := resultText(func(w io.Writer) { reaper.RenderEditResult(w, plan, res) })
	n := int64(0)
	if res.Done() {
		n = 1
	}
	fmt.Fprint(e.stdout, fitWidth(resultOf(func(w io.Writer) { reaper.RenderEditResult(w, plan, res) }), c.wide))
	execErr = endJournal(e.stdout, log.prefix, w, n, result, execErr)
	if res.Done() {
		fmt.Fprintf(e.stdout, "Undo: `%s undo %s` puts it back while it is still where this left it.\n", log.prefix, w.ID())
	}
	if err := log.record(op.title, targets, n, result, execErr); err != nil {
		return editError(op.title, err)
	}
	return nil
}

// planEdit reads the job, takes its new args (from --args or the editor)
// and plans the edit. The job read again by the plan must be the one
// whose args were edited.
func (c *jobsCmd) planEdit(ctx context.Context, e env, conn redis.Conn, keys redisq.Keys, op jobsOp, ref reaper.JobRef) (reaper.EditPlan, error) {
	var none reaper.EditPlan
	sj, old, err := reaper.ReadEditable(ctx, conn, keys, op.set, ref)
	if err != nil {
		return none, err
	}
	text, err := c.editedArgs(e, reaper.PrettyArgs(old))
	if err != nil {
		return none, err
	}
	args, err := model.CompactArgs(text)
	if err != nil {
		return none, localErrorf("%s", textsafe.Clean(err.Error()))
	}
	plan, err := reaper.PlanEdit(ctx, conn, keys, op.set, ref, args, c.requeue)
	if err != nil {
		return plan, err
	}
	if !bytes.Equal(plan.Job.Raw, sj.Raw) || plan.Job.ScoreText != sj.ScoreText {
		return plan, fmt.Errorf("the job changed while its args were edited: %w; run the edit again on what it holds now", reaper.ErrEditMoved)
	}
	return plan, nil
}

// editedArgs is the new args' text: from --args FILE (- stdin), else from
// the operator's editor run on the terminal.
func (c *jobsCmd) editedArgs(e env, pretty []byte) ([]byte, error) {
	switch c.argsFile {
	case "-":
		return readArgs(e.stdin, "stdin")
	case "":
	default:
		f, err := os.Open(c.argsFile)
		if err != nil {
			return nil, localErrorf("--args: %w", err)
		}
		defer func() { _ = f.Close() }() // read only
		return readArgs(f, textsafe.Clean(c.argsFile))
	}
	if !e.stdinIsTTY && e.getenv("VISUAL") == "" && e.getenv("EDITOR") == "" {
		return nil, localErrorf("stdin is not a terminal, so no editor can run: give the new args with --args FILE (or --args - on stdin)")
	}
	s, err := editor.Open(e.getenv, "args.json", pretty)
	if err != nil {
		return nil, localErrorf("%w", err)
	}
	defer s.Close()
	// The editor gets the real terminal, not the command's streams.
	s.Cmd.Stdin, s.Cmd.Stdout, s.Cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := s.Cmd.Run(); err != nil {
		return nil, localErrorf("editor %s: %w: nothing changed", textsafe.Clean(s.Cmd.Args[0]), err)
	}
	return s.Read()
}

// readArgs reads at most maxArgsBytes of args from r, named from.
func readArgs(r io.Reader, from string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxArgsBytes+1))
	if err != nil {
		return nil, localErrorf("--args: read %s: %w", from, err)
	}
	if len(b) > maxArgsBytes {
		return nil, localErrorf("--args: %s holds more than %d MiB", from, maxArgsBytes>>20)
	}
	return b, nil
}

// editError is an edit's or duplicate's error, one line, the sentinel
// refusals as the operator's own errors.
func editError(title string, err error) error {
	var le localError
	switch {
	case errors.As(err, &le):
		return fmt.Errorf("%s: %w", title, err)
	case errors.Is(err, reaper.ErrJobNotFound), errors.Is(err, reaper.ErrAmbiguous), errors.Is(err, reaper.ErrUniqueHeld),
		errors.Is(err, reaper.ErrEditMoved), errors.Is(err, model.ErrNotEditable):
		return localErrorf("%s: %s", title, textsafe.Clean(err.Error()))
	}
	return fmt.Errorf("%s: %w", title, err)
}
