package cli

// This file owns the writes on a queue by query: `jobs queue JOB delete
// --where QUERY` and `jobs queue JOB park --where QUERY`. Plan, show,
// confirm, execute with the journal, audit.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// drain deletes or parks the jobs of op's queue that the query matches.
func (c *jobsCmd) drain(ctx context.Context, e env, op jobsOp) error {
	action := reaper.DrainDelete
	if op.park {
		action = reaper.DrainPark
	}
	log, err := beginWrite(e, &c.target, op.title, c.write, c.audit)
	if err != nil {
		return err
	}
	conn, done, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer done()
	plan, err := reaper.PlanDrain(ctx, conn, redisq.NewKeys(c.namespace), action, op.queue, c.query)
	if err != nil {
		return fmt.Errorf("%s: %w", op.title, err)
	}
	printFitted(e.stdout, c.wide, func(w io.Writer) { reaper.RenderDrainPlan(w, plan) })
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	if len(plan.Items) == 0 {
		return nil
	}
	verb := "delete"
	if op.park {
		verb = "park"
	}
	question := fmt.Sprintf("%s %s from queue %s?", strings.ToUpper(verb[:1])+verb[1:], jobsPlural(int64(len(plan.Items)), "job"), textsafe.Clean(op.queue))
	if err := c.write.confirm(e, question, verb); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	x := reaper.NewDrainExecutor(c.namespace, c.batch)
	past := map[string]string{"delete": "deleted", "park": "parked"}[verb]
	progress := reaper.JobsProgress(progressPrinter(e.stderr, past))
	if c.rate > 0 {
		x.SetRate(c.rate)
		progress = rateProgress(e.stderr, past, time.Now)
	}
	jop := journal.OpQueueDrain
	if op.park {
		jop = journal.OpQueuePark
	}
	targets := reaper.DrainAuditTargets(plan)
	w, err := log.startJournal(jop, op.title, targets, "")
	if err != nil {
		return err
	}
	res, execErr := x.WithJournal(w).Execute(ctx, conn, plan, progress)
	line := reaper.DrainAuditLine(plan, res)
	execErr = endJournal(e.stdout, log.prefix, w, res.Done, line, execErr)
	printFitted(e.stdout, c.wide, func(w io.Writer) { reaper.RenderDrainResult(w, action, res) })
	if execErr != nil && ctx.Err() != nil {
		fmt.Fprintf(e.stdout, "Stopped: %d of %d jobs done; run the same command again to finish (%s).\n", res.Done, len(plan.Items), op.title)
	}
	return log.record(reaper.DrainAuditAction(action), targets, res.Done, line, execErr)
}
