package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func requeueCommand() command {
	return command{
		name:    "requeue",
		args:    "KEY...",
		summary: "move the jobs of in-progress lists KEY... back to their queues",
		help: `Move the jobs of in-progress lists (<ns>:jobs:<job>:<pool>:inprogress)
back to their queues, and take them out of the job type's lock and
lock_info. Meant for orphaned lists (their pool is gone from worker_pools;
` + "`workq-tui snapshot`" + ` lists them) and for lists of dead pools; a list whose
pool is alive is left alone.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &requeueCmd{}
			c.target.addFlags(fs)
			addDeadAfter(fs, &c.deadAfter)
			c.write.addFlags(fs)
			c.write.addWide(fs)
			addBatch(fs, &c.batch)
			c.audit.addFlags(fs)
			return c
		},
	}
}

type requeueCmd struct {
	target
	write     writeFlags
	audit     auditFlag
	deadAfter time.Duration
	batch     int
}

// run: plan, show, confirm, execute in batches, show the result.
func (c *requeueCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	if err := errors.Join(checkDeadAfter(c.deadAfter), checkBatch(c.batch)); err != nil {
		return err
	}
	if len(args) == 0 {
		return usageErrorf("requeue needs at least one in-progress list KEY (<ns>:jobs:<job>:<pool>:inprogress; `snapshot` lists orphans)")
	}
	log, err := beginWrite(e, &c.target, "requeue", c.write, c.audit)
	if err != nil {
		return err
	}
	conn, done, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer done()
	r := reaper.NewReaper(redisq.OneConn(conn), c.namespace, c.batch)
	plan, err := r.PlanRequeue(ctx, args, c.deadAfter)
	if err != nil {
		return err
	}
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderRequeuePlan(w, plan) })
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	question := fmt.Sprintf("Requeue %d jobs from %d lists?", plan.TotalJobs(), len(plan.Lists))
	if err := c.write.confirm(e, question, "requeue"); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	lists := make([]string, len(plan.Lists))
	for i, l := range plan.Lists {
		lists[i] = l.Key
	}
	jr, err := startRepairJournal(ctx, e, log, redisq.OneConn(conn), c.namespace, journal.OpOrphans, "requeue", lists, reaper.RequeueScope(plan))
	if err != nil {
		return err
	}
	res, err := r.Requeue(ctx, plan, progressPrinter(e.stderr, "requeued"))
	result := resultText(func(w io.Writer) { reaper.RenderRequeueResult(w, res) })
	err = jr.finish(res.TotalMoved(), result, err)
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderRequeueResult(w, res) })
	if err := log.record("requeue", lists, res.TotalMoved(), result, err); err != nil {
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
