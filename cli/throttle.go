package cli

// This file owns the throttle command: plan from a snapshot, show, confirm,
// one atomic script call with its journal, show the result, one audit line.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func throttleCommand() command {
	return command{
		name:    "throttle",
		args:    "JOB N | JOB --reset",
		summary: "cap how many JOB jobs run at once across all pools (until the next pool start)",
		help: `Throttle a job type: set <ns>:jobs:<job>:max_concurrency to N, the cap on
its lock that gocraft/work's fetch script reads on every fetch. Running
jobs finish; no new one starts while N or more run. --reset writes 0 (no
cap); it is refused where the journal shows the pools wrote another cap
before the throttles in force (the refusal names the command that puts
it back). A pool writes its own MaxConcurrency (0 without one) when it starts,
so the next pool start of any pool naming JOB ends the throttle. The value
before is journalled (` + "`undo`" + ` puts it back while the key still holds what
the throttle wrote), and the script re-checks the value the plan saw.
Snapshot, explain and the screen mark the job type THROTTLED while the
last throttle is in force.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &throttleCmd{}
			c.target.addFlags(fs)
			c.write.addFlags(fs)
			c.write.addWide(fs)
			fs.BoolVar(&c.reset, "reset", false, "write 0 (no cap) instead of a limit")
			c.audit.addFlags(fs)
			return c
		},
	}
}

type throttleCmd struct {
	target
	write writeFlags
	audit auditFlag
	reset bool
}

// run: check the words, snapshot, plan, show, confirm, execute, audit.
func (c *throttleCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	job, n, err := throttleArgs(args, c.reset)
	if err != nil {
		return err
	}
	log, err := beginWrite(e, &c.target, "throttle", c.write, c.audit)
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
	snap, err := redisq.NewClient(pool, c.namespace, model.DefaultDeadAfter).Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("throttle: %w", err)
	}
	markThrottled(e, c.audit, &c.target, snap)
	plan, err := reaper.NewThrottlePlan(snap, job, n, c.reset)
	switch {
	case errors.Is(err, reaper.ErrUnknownJob), errors.Is(err, reaper.ErrResetNotPools):
		return localErrorf("%s", textsafe.Clean(err.Error()))
	case err != nil:
		return err
	}
	for _, w := range snap.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", textsafe.Clean(w))
	}
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderThrottlePlan(w, plan) })
	if !plan.Changes() {
		fmt.Fprintln(e.stdout, "Nothing to do.")
		return nil
	}
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	question := fmt.Sprintf("Set %s's max_concurrency to %d?", textsafe.Clean(job), plan.New)
	if err := c.write.confirm(e, question, "throttle"); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	w, err := log.startJournal(journal.OpThrottle, plan.Verb(), []string{job}, "")
	if err != nil {
		return err
	}
	res, execErr := func() (reaper.ThrottleResult, error) {
		conn, err := pool.GetContext(ctx)
		if err != nil {
			return reaper.ThrottleResult{Name: job}, fmt.Errorf("throttle: %w", err)
		}
		defer conn.Close()
		return reaper.ExecuteThrottleJournal(ctx, conn, plan, w)
	}()
	done := int64(0)
	if res.Status == reaper.ThrottleDone {
		done = 1
	}
	fmt.Fprintln(e.stdout)
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderThrottleResult(w, res) })
	result := resultText(func(w io.Writer) { reaper.RenderThrottleResult(w, res) })
	execErr = endJournal(e.stdout, log.prefix, w, done, result, execErr)
	return log.record("throttle", []string{job}, 0, result, execErr)
}

// throttleArgs checks the words of a throttle: JOB and N, or JOB alone
// with --reset.
func throttleArgs(args []string, reset bool) (string, int64, error) {
	switch {
	case len(args) == 0:
		return "", 0, usageErrorf("throttle needs a job type name and a limit: throttle JOB N, or throttle JOB --reset (`workq-tui snapshot` lists the job types)")
	case args[0] == "":
		return "", 0, usageErrorf("throttle: empty job type name")
	case reset && len(args) > 1:
		return "", 0, usageErrorf("throttle --reset takes a job type name and no limit, not %q", textsafe.Clean(strings.Join(args[1:], " ")))
	case reset:
		return args[0], 0, nil
	case len(args) == 1:
		return "", 0, usageErrorf("throttle %s needs a limit: a positive integer, or --reset for no cap", textsafe.Clean(args[0]))
	case len(args) > 2:
		return "", 0, usageErrorf("throttle takes one job type and one limit, not %q", textsafe.Clean(strings.Join(args[2:], " ")))
	}
	n, err := reaper.ParseLimit(args[1])
	if err != nil {
		return "", 0, usageErrorf("%v", err)
	}
	return args[0], n, nil
}
