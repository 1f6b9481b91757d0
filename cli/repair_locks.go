package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func repairLocksCommand() command {
	return command{
		name:    "repair-locks",
		args:    "JOB...",
		summary: "reset lock and lock_info of job types JOB... from the in-progress lists",
		help: `Reset the lock and lock_info of job types to what their in-progress lists
hold: lock_info of each pool becomes the length of its list, fields of pools
that are gone are removed, and lock becomes their sum. The plan shows each
value before and after; one atomic script per job type re-checks the lists
as it writes.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &repairLocksCmd{}
			c.target.addFlags(fs)
			c.write.addFlags(fs)
			c.write.addWide(fs)
			c.audit.addFlags(fs)
			return c
		},
	}
}

type repairLocksCmd struct {
	target
	write writeFlags
	audit auditFlag
}

// run: plan, show before and after, confirm, run one atomic script per job
// type, show the result.
func (c *repairLocksCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	if len(args) == 0 {
		return usageErrorf("repair-locks needs at least one job type name")
	}
	log, err := beginWrite(e, &c.target, "repair-locks", c.write, c.audit)
	if err != nil {
		return err
	}
	conn, done, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer done()
	r := reaper.NewReaper(redisq.OneConn(conn), c.namespace, 0)
	plan, err := r.PlanRepairLocks(ctx, args)
	if err != nil {
		return err
	}
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderLockRepairPlan(w, plan) })
	if !plan.Changes() {
		fmt.Fprintln(e.stdout, "Nothing to repair.")
		return nil
	}
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	// Only the job types that change: the others would be rewritten with
	// the same values, for nothing.
	todo := plan
	todo.Jobs = nil
	for _, j := range plan.Jobs {
		if j.Changes() {
			todo.Jobs = append(todo.Jobs, j)
		}
	}
	if err := c.write.confirm(e, fmt.Sprintf("Repair the locks of %d job types?", len(todo.Jobs)), "repair locks"); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	names := make([]string, len(todo.Jobs))
	for i, j := range todo.Jobs {
		names[i] = j.JobName
	}
	jr, err := startRepairJournal(ctx, e, log, redisq.OneConn(conn), c.namespace, journal.OpRepairLocks, "repair-locks", names, reaper.LockRepairScope(todo))
	if err != nil {
		return err
	}
	res, err := r.RepairLocks(ctx, todo)
	result := resultText(func(w io.Writer) { reaper.RenderLockRepairResult(w, res) })
	err = jr.finish(0, result, err)
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderLockRepairResult(w, res) })
	return log.record("repair-locks", names, 0, result, err)
}
