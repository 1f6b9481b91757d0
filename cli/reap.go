package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func reapCommand() command {
	return command{
		name:    "reap",
		args:    "POOL_ID... | --all-dead",
		summary: "reap dead pools: POOL_ID... or --all-dead",
		help: `Reap dead worker pools as gocraft/work's dead pool reaper does: move the
jobs of their in-progress lists back to their queues, take their share out
of each job type's lock and lock_info, delete their heartbeat and remove
them from worker_pools. The plan is shown first; a pool that beats again
before its turn is not reaped.

Leaked in-progress entries (stand-ins that gocraft/work master's
EnqueueUniqueByKey leaves behind after their job ran) are removed, not
requeued, and the plan lists them apart: requeued, each would run its job
again with older arguments. --requeue-leaked requeues them as gocraft/work's
reaper does.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &reapCmd{}
			c.target.addFlags(fs)
			addDeadAfter(fs, &c.deadAfter)
			c.write.addFlags(fs)
			c.write.addWide(fs)
			fs.BoolVar(&c.allDead, "all-dead", false, "every dead pool")
			fs.BoolVar(&c.requeueLeaked, "requeue-leaked", false, "requeue leaked in-progress entries too (their jobs already ran)")
			addBatch(fs, &c.batch)
			c.audit.addFlags(fs)
			return c
		},
	}
}

type reapCmd struct {
	target
	write     writeFlags
	audit     auditFlag
	deadAfter time.Duration
	allDead   bool
	batch     int
	// requeueLeaked: see reaper.Targets.RequeueLeaked.
	requeueLeaked bool
}

// run: snapshot, plan, show, confirm, execute in batches with progress on
// stderr, show what was done per pool and job type.
func (c *reapCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	if err := errors.Join(checkDeadAfter(c.deadAfter), checkBatch(c.batch)); err != nil {
		return err
	}
	switch {
	case len(args) == 0 && !c.allDead:
		return usageErrorf("reap needs pool IDs or --all-dead (`workq-tui snapshot` lists the dead pools)")
	case len(args) > 0 && c.allDead:
		return usageErrorf("reap takes pool IDs or --all-dead, not both")
	}
	log, err := beginWrite(e, &c.target, "reap", c.write, c.audit)
	if err != nil {
		return err
	}
	d, stop, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer stop()
	pool := d.Pool()
	defer pool.Close()
	client := redisq.NewClient(pool, c.namespace, c.deadAfter)
	snap, err := client.Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("reap: redis at %s: %w", c.address(), err)
	}
	plan, err := reaper.NewPlan(snap, reaper.Targets{PoolIDs: args, AllDead: c.allDead, RequeueLeaked: c.requeueLeaked})
	// What the snapshot could not read (worker_pools of the wrong type, a
	// refused TIME) changes what "no dead pool" or "unknown pool" means: an
	// error says it on its one line; a plan that goes ahead shows it first.
	var unread string
	if len(snap.Warnings) > 0 {
		unread = fmt.Sprintf("; namespace %s could not be read in full: %s", c.namespace, textsafe.Clean(strings.Join(snap.Warnings, "; ")))
	}
	switch {
	case errors.Is(err, reaper.ErrNothingToDo) && c.allDead && unread != "":
		return fmt.Errorf("reap: no dead pool found%s", unread)
	case errors.Is(err, reaper.ErrNothingToDo) && c.allDead:
		fmt.Fprintf(e.stdout, "No dead pool in namespace %s: nothing to reap.\n", textsafe.Clean(c.namespace))
		return nil
	case errors.Is(err, reaper.ErrUnknownPool):
		return fmt.Errorf("reap: %w: not in %s (see `workq-tui snapshot`)%s", err, redisq.NewKeys(c.namespace).WorkerPools(), unread)
	case errors.Is(err, reaper.ErrPoolAlive):
		return fmt.Errorf("reap: %w: not reaped (cut-off --dead-after %s)%s", err, c.deadAfter, unread)
	case err != nil:
		return fmt.Errorf("reap: %w%s", err, unread)
	}
	for _, w := range snap.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", textsafe.Clean(w))
	}
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderReapPlan(w, plan) })
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	question := fmt.Sprintf("Reap %d pools and requeue %d jobs?", len(plan.Pools), plan.TotalJobs())
	if len(plan.Pools) == 1 {
		question = fmt.Sprintf("Reap pool %s and requeue %d jobs?", plan.Pools[0].PoolID, plan.TotalJobs())
	}
	if err := c.write.confirm(e, question, "reap"); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	ids := make([]string, len(plan.Pools))
	for i, pp := range plan.Pools {
		ids[i] = pp.PoolID
	}
	jr, err := startRepairJournal(ctx, e, log, pool, c.namespace, journal.OpReap, "reap", ids, reaper.ReapScope(plan, redisq.NewKeys(c.namespace)))
	if err != nil {
		return err
	}
	r := reaper.NewReaper(pool, c.namespace, c.batch)
	res, err := r.Reap(ctx, plan, progressPrinter(e.stderr, "requeued"))
	result := resultText(func(w io.Writer) { reaper.RenderReapResult(w, res) })
	err = jr.finish(res.TotalMoved(), result, err)
	fmt.Fprintln(e.stdout)
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderReapResult(w, res) })
	if err := log.record("reap", ids, res.TotalMoved(), result, err); err != nil {
		return err // "reap pool ID: ..." for each pool that failed
	}
	var skipped []string
	for _, pr := range res.Pools {
		// A pool another process removed first, with nothing left in its
		// lists, needs nothing more.
		if !pr.Reaped && !(pr.Gone && pr.Left == 0) {
			skipped = append(skipped, pr.PoolID)
		}
	}
	if len(skipped) > 0 {
		return fmt.Errorf("reap: %d of %d pools not reaped (%s): see above", len(skipped), len(res.Pools), strings.Join(skipped, ", "))
	}
	return nil
}
