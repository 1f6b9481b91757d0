package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/reaper"
)

func deleteUniqueCommand() command {
	return command{
		name:    "delete-unique",
		args:    "JOB ARGS...",
		summary: "delete unique keys of job type JOB that refuse new enqueues",
		help: `Delete gocraft/work unique keys (<ns>:unique:JOB:ARGS) of job type JOB.
While such a key exists, EnqueueUnique with the same arguments is refused
even when no copy of the job waits (a job deleted from the scheduled set
by gocraft/work master's DeleteScheduledJob leaves its EnqueueUniqueByKey
key behind), and every refused enqueue renews its 24 h time to live.
ARGS is the key's last part as explain and jobs print it, the arguments'
JSON without the newline byte that ends gocraft/work's key names: the
newline is added here, so the key need not be pasted into redis-cli. Each
key is deleted in its own atomic step, only while it holds the value the
plan shows; ` + "`undo`" + ` sets it back with its time to live.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &deleteUniqueCmd{}
			c.target.addFlags(fs)
			c.write.addFlags(fs)
			c.write.addWide(fs)
			c.audit.addFlags(fs)
			return c
		},
	}
}

type deleteUniqueCmd struct {
	target
	write writeFlags
	audit auditFlag
}

// run: read the keys, plan, show, confirm, delete one key per script call
// with its journal, show the result.
func (c *deleteUniqueCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	if len(args) < 2 {
		return usageErrorf("delete-unique: give a job type and the arguments of at least one unique key")
	}
	for _, a := range args {
		if a == "" {
			return usageErrorf("delete-unique: empty argument")
		}
	}
	job := args[0]
	log, err := beginWrite(e, &c.target, "delete-unique", c.write, c.audit)
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
	r := reaper.NewReaper(pool, c.namespace, 0)
	plan, err := r.PlanDeleteUnique(ctx, job, args[1:])
	if err != nil {
		return fmt.Errorf("redis at %s: %w", c.address(), err)
	}
	fmt.Fprint(e.stdout, fitWidth(reaper.UniqueDeletePlanText(plan), c.write.wide))
	found := plan.Found()
	if len(found) == 0 {
		fmt.Fprintln(e.stdout, "Nothing to delete.")
		return nil
	}
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	if err := c.write.confirm(e, fmt.Sprintf("Delete %d unique keys of %s?", len(found), job), "delete unique keys"); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	keys := make([]string, len(found))
	for i, k := range found {
		keys[i] = strings.TrimSuffix(k.Key, "\n")
	}
	w, err := log.startJournal(journal.OpDeleteUnique, "delete-unique", keys, "")
	if err != nil {
		return err
	}
	res, err := r.DeleteUnique(ctx, plan, w)
	result := reaper.UniqueDeleteResultText(res)
	err = endJournal(e.stdout, log.prefix, w, res.Deleted, result, err)
	fmt.Fprint(e.stdout, fitWidth(result, c.write.wide))
	return log.record("delete-unique", keys, res.Deleted, result, err)
}
