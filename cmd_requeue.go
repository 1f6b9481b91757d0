package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func requeueCommand() command {
	return command{name: "requeue", summary: "move the jobs of in-progress lists KEY... back to their queues", flags: []string{"dry-run", "yes", "batch"},
		run: runRequeue}
}

// rqErrAborted is returned when the operator answers no at the prompt.
var rqErrAborted = errors.New("aborted: nothing changed")

// runRequeue: plan, show, confirm, execute in batches, show the result.
func runRequeue(ctx context.Context, e env, cfg *config, args []string) error {
	if len(args) == 0 {
		return usageErrorf("requeue needs at least one in-progress list KEY (<ns>:jobs:<job>:<pool>:inprogress; `snapshot` lists orphans)")
	}
	if err := refuseWriteInReadOnly(cfg, "requeue"); err != nil {
		return err
	}
	conn, done, err := rqDial(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	keys := redisq.NewKeys(cfg.namespace)
	plan, err := reaper.PlanRequeue(ctx, conn, keys, args, cfg.deadAfter)
	if err != nil {
		return err
	}
	reaper.RenderRequeuePlan(e.stdout, plan)
	if cfg.cmd.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	question := fmt.Sprintf("Requeue %d jobs from %d lists?", plan.TotalJobs(), len(plan.Lists))
	if err := rqConfirm(e, cfg.cmd.yes, question, "requeue"); err != nil {
		return err
	}
	progress := rqProgressPrinter(e.stderr, "requeued")
	res, err := reaper.ExecuteRequeue(ctx, conn, keys, plan, cfg.cmd.batch, progress)
	reaper.RenderRequeueResult(e.stdout, res)
	if err != nil {
		return err
	}
	var skipped int
	for _, l := range res.Lists {
		if l.Skipped != "" {
			skipped++
		}
	}
	if skipped > 0 {
		return fmt.Errorf("%d of %d lists not requeued: their pool is alive again", skipped, len(res.Lists))
	}
	return nil
}

// rqDial connects once (with --demo, to the demo Redis); done closes the
// connection and stops the demo.
func rqDial(ctx context.Context, cfg *config) (redis.Conn, func(), error) {
	d, stop, err := cfg.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	conn, err := d.Dial(ctx)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return conn, func() { conn.Close(); stop() }, nil
}

// rqConfirm asks the operator on the terminal. With --yes it does not ask;
// without a terminal on stdin it refuses rather than act unasked.
func rqConfirm(e env, yes bool, question, what string) error {
	if yes {
		return nil
	}
	if !e.stdinIsTTY {
		return fmt.Errorf("stdin is not a terminal: run again with --yes to %s without a prompt (or --dry-run to only see the plan)", what)
	}
	fmt.Fprintf(e.stdout, "%s [y/N] ", question)
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return rqErrAborted
}

// rqProgressPrinter reports progress on w at most every tenth of the total,
// and only when there is more than one step to report.
func rqProgressPrinter(w io.Writer, verb string) reaper.Progress {
	last := int64(-1)
	return func(moved, total int64) {
		if total <= 0 {
			return
		}
		tenth := moved * 10 / total
		if tenth == last || (moved == total && last < 0) {
			last = tenth
			return
		}
		last = tenth
		fmt.Fprintf(w, "%s %d of %d jobs\n", verb, moved, total)
	}
}
