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

func removeLeakedCommand() command {
	return command{
		name:    "remove-leaked",
		args:    "[JOB...]",
		summary: "remove leaked in-progress entries (of job types JOB..., or all)",
		help: `Remove leaked in-progress entries: stand-ins that gocraft/work master's
(and gojek/work's) workers leave in their in-progress list after running a
job enqueued with EnqueueUniqueByKey whose unique key a later enqueue
rewrote. Their jobs have run; lock and lock_info no longer count them, so
they hold no slot, but they show as in progress, and a reap of their pool
would run the job again with older arguments. An entry is leaked when it
carries a unique_key, no worker of its pool runs it, and its list holds
more entries than the pool's lock_info counts. Each is removed in its own
atomic step that re-checks the count; ` + "`undo`" + ` pushes them back.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &removeLeakedCmd{}
			c.target.addFlags(fs)
			c.write.addFlags(fs)
			c.write.addWide(fs)
			c.audit.addFlags(fs)
			return c
		},
	}
}

type removeLeakedCmd struct {
	target
	write writeFlags
	audit auditFlag
}

// run: snapshot, plan, show, confirm, remove one entry per script call
// with its journal, show the result.
func (c *removeLeakedCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	for _, a := range args {
		if a == "" {
			return usageErrorf("remove-leaked: empty job name")
		}
	}
	log, err := beginWrite(e, &c.target, "remove-leaked", c.write, c.audit)
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
	snap, err := redisq.NewClient(pool, c.namespace, 0).Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("remove-leaked: redis at %s: %w", c.address(), err)
	}
	plan := reaper.NewLeakedPlan(snap, args)
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderLeakedPlan(w, plan) })
	if len(plan.Entries) == 0 {
		fmt.Fprintln(e.stdout, "Nothing to remove.")
		return nil
	}
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	if err := c.write.confirm(e, fmt.Sprintf("Remove %d leaked in-progress entries?", len(plan.Entries)), "remove leaked entries"); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	keys := make([]string, len(plan.Entries))
	for i, l := range plan.Entries {
		keys[i] = l.Key
	}
	w, err := log.startJournal(journal.OpRemoveLeaked, "remove-leaked", keys, "")
	if err != nil {
		return err
	}
	res, err := reaper.NewReaper(pool, c.namespace, 0).RemoveLeaked(ctx, plan, w)
	result := reaper.LeakedResultText(res)
	err = endJournal(e.stdout, log.prefix, w, res.Removed, result, err)
	fmt.Fprint(e.stdout, fitWidth(result, c.write.wide))
	return log.record("remove-leaked", keys, res.Removed, result, err)
}
