package main

import (
	"context"
	"fmt"

	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func repairLocksCommand() command {
	return command{name: "repair-locks", summary: "reset lock and lock_info of job types JOB... from the in-progress lists", flags: []string{"dry-run", "yes"},
		run: runRepairLocks}
}

// runRepairLocks: plan, show before and after, confirm, run one atomic
// script per job type, show the result.
func runRepairLocks(ctx context.Context, e env, cfg *config, args []string) error {
	if len(args) == 0 {
		return usageErrorf("repair-locks needs at least one job type name")
	}
	if err := refuseWriteInReadOnly(cfg, "repair-locks"); err != nil {
		return err
	}
	conn, done, err := rqDial(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	keys := redisq.NewKeys(cfg.namespace)
	plan, err := reaper.PlanRepairLocks(ctx, conn, keys, args)
	if err != nil {
		return err
	}
	reaper.RenderLockRepairPlan(e.stdout, plan)
	if !plan.Changes() {
		fmt.Fprintln(e.stdout, "Nothing to repair.")
		return nil
	}
	if cfg.cmd.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	var n int
	for _, j := range plan.Jobs {
		if j.Changes() {
			n++
		}
	}
	if err := rqConfirm(e, cfg.cmd.yes, fmt.Sprintf("Repair the locks of %d job types?", n), "repair locks"); err != nil {
		return err
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
	res, err := reaper.ExecuteRepairLocks(ctx, conn, keys, todo)
	reaper.RenderLockRepairResult(e.stdout, res)
	return err
}
