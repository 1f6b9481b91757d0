package cli

// This file owns the pause and unpause commands: plan from a snapshot,
// show, confirm, one atomic script call, show the result, one audit line.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func pauseCommand() command {
	return command{
		name:    "pause",
		args:    "JOB...",
		summary: "pause job types JOB...: workers stop taking new jobs of them",
		help: `Pause job types: set <ns>:jobs:<job>:paused, the key gocraft/work's fetch
script checks. Workers stop taking new jobs of the type; the jobs in
progress run to the end, and enqueues go on, so the queue grows. A name
that is not in known_jobs and that no worker pool names is refused (a typo
would create a key nobody reads) unless --force is given. Every key is
re-checked as it is written: one that holds something other than a string
refuses the whole change.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &pauseCmd{pause: true}
			c.target.addFlags(fs)
			c.write.addFlags(fs)
			c.write.addWide(fs)
			fs.BoolVar(&c.force, "force", false, "pause names that no worker pool and no known_jobs entry names")
			c.audit.addFlags(fs)
			return c
		},
	}
}

func unpauseCommand() command {
	return command{
		name:    "unpause",
		args:    "JOB...",
		summary: "unpause job types JOB...: workers take their jobs again",
		help: `Unpause job types: delete <ns>:jobs:<job>:paused. Idle workers poll with a
back-off of up to 5 s, so work resumes within seconds. A key that holds
something other than a string refuses the whole change.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &pauseCmd{}
			c.target.addFlags(fs)
			c.write.addFlags(fs)
			c.write.addWide(fs)
			c.audit.addFlags(fs)
			return c
		},
	}
}

type pauseCmd struct {
	target
	write writeFlags
	audit auditFlag
	pause bool // pause, else unpause
	force bool
}

func (c *pauseCmd) verb() string {
	if c.pause {
		return "pause"
	}
	return "unpause"
}

// run: snapshot, plan, show, confirm, execute, show the result, audit.
func (c *pauseCmd) run(ctx context.Context, e env, args []string) error {
	verb := c.verb()
	if err := c.check(e); err != nil {
		return err
	}
	if len(args) == 0 {
		return usageErrorf("%s needs at least one job type name (`workq-tui snapshot` lists them)", verb)
	}
	for _, a := range args {
		if a == "" {
			return usageErrorf("%s: empty job type name", verb)
		}
	}
	log, err := beginWrite(e, &c.target, verb, c.write, c.audit)
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
		return fmt.Errorf("%s: %w", verb, err)
	}
	plan, err := reaper.NewPausePlan(snap, args, c.pause, c.force)
	// What the snapshot could not read (known_jobs of the wrong type, say)
	// may be why a name is unknown: the refusal says it on its one line.
	var unread string
	if len(snap.Warnings) > 0 {
		unread = fmt.Sprintf("; namespace %s could not be read in full: %s", c.namespace, strings.Join(snap.Warnings, "; "))
	}
	switch {
	case errors.Is(err, reaper.ErrUnknownJob):
		return localErrorf("%s with --force%s", textsafe.Clean(err.Error()), textsafe.Clean(unread))
	case err != nil:
		return err
	}
	for _, w := range snap.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", textsafe.Clean(w))
	}
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderPausePlan(w, plan) })
	if !pauseChanges(plan) {
		fmt.Fprintln(e.stdout, "Nothing to do.")
		return nil
	}
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		return nil
	}
	names := textsafe.Clean(strings.Join(plan.Names(), ", "))
	question := fmt.Sprintf("%s %s?", strings.ToUpper(verb[:1])+verb[1:], names)
	if len(plan.Jobs) > 1 {
		question = fmt.Sprintf("%s %d job types (%s)?", strings.ToUpper(verb[:1])+verb[1:], len(plan.Jobs), names)
	}
	if err := c.write.confirm(e, question, verb); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	// The whole plan goes to the script, the job types already in the
	// state asked for too: it re-checks every key, and one of the wrong
	// type refuses the whole change.
	res, execErr := pauseJournalled(ctx, e, log, pool, plan)
	fmt.Fprintln(e.stdout)
	printFitted(e.stdout, c.write.wide, func(w io.Writer) { reaper.RenderPauseResult(w, res) })
	result := resultText(func(w io.Writer) { reaper.RenderPauseResult(w, res) })
	return log.record(verb, plan.Names(), 0, result, execErr)
}

// pauseChanges is whether the plan changes anything as the snapshot saw
// it: a pause of a job type not paused, an unpause of one paused (or of a
// name the snapshot could not tell about), as RenderPausePlan shows them.
func pauseChanges(p reaper.PausePlan) bool {
	for _, j := range p.Jobs {
		if p.Pause && !j.Paused || !p.Pause && (j.Paused || !j.Known) {
			return true
		}
	}
	return false
}
