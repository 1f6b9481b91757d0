package cli

// This file owns the writes of the jobs command: requeue or delete set
// members, delete a job from a queue. Plan, show, confirm, execute, audit.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func (c *jobsCmd) act(ctx context.Context, e env, op jobsOp) error {
	log, err := beginWrite(e, &c.target, op.title, c.write, c.audit)
	if err != nil {
		return err
	}
	conn, second, done, err := c.dialPair(ctx)
	if err != nil {
		return err
	}
	defer done()
	keys := redisq.NewKeys(c.namespace)
	t := reaper.JobsTarget{Set: op.set, Queue: op.queue, Refs: op.refs, All: c.all, Job: c.job, Force: c.force}
	if !c.query.Empty() {
		t.Query = c.query
	}
	if op.set == "" {
		t.Force = false // a queue delete takes no force; --force is checked below
	}
	plan, err := reaper.PlanJobs(ctx, conn, keys, op.action, t)
	var refused error // the refusal of the run a dry run stands for
	if err != nil && c.write.dryRun && op.set != "" && !t.Force && errors.Is(err, reaper.ErrUnserved) {
		// A dry run always shows its plan: here the one --force would run,
		// saying that a run without it is refused; it then exits as that
		// run does (1), so that a script that dry-runs first stops here.
		refused = err
		t.Force = true
		if plan, err = reaper.PlanJobs(ctx, conn, keys, op.action, t); err == nil {
			plan.Unforced("without --force the requeue is refused; --force pushes them anyway")
		}
	}
	if err != nil && plan.Refused != nil && c.write.dryRun {
		// The write would be refused; the dry run shows what it matched.
		printFitted(e.stdout, c.wide, func(w io.Writer) { reaper.RenderJobsPlan(w, plan) })
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op.title, err)
	}
	if op.set == "" && !c.force {
		if err := checkQueueDuplicates(plan); err != nil {
			return fmt.Errorf("%s: %w", op.title, err)
		}
	}
	printFitted(e.stdout, c.wide, func(w io.Writer) { reaper.RenderJobsPlan(w, plan) })
	if note := timelineNote(plan, commandPrefix(&c.target)); note != "" {
		fmt.Fprintln(e.stdout, note)
	}
	if c.write.dryRun {
		fmt.Fprintln(e.stdout, "Dry run: nothing changed.")
		if refused != nil {
			return fmt.Errorf("%s: a run without --force is refused: %w", op.title, refused)
		}
		return nil
	}
	if plan.Total == 0 {
		return nil
	}
	verb := "Delete"
	if op.action == reaper.JobsRequeue {
		verb = "Requeue"
	}
	where := string(op.set)
	if op.set == "" {
		where = "queue " + textsafe.Clean(op.queue)
	}
	question := fmt.Sprintf("%s %s from %s?", verb, jobsPlural(plan.Total, "job"), where)
	if err := c.write.confirm(e, question, strings.ToLower(verb)); err != nil {
		return err
	}
	if err := log.ready(); err != nil {
		return err
	}
	x := reaper.NewJobsExecutor(c.namespace, c.batch)
	progress := reaper.JobsProgress(progressPrinter(e.stderr, strings.ToLower(verb)+"d"))
	if c.rate > 0 {
		x.SetRate(c.rate)
		progress = rateProgress(e.stderr, strings.ToLower(verb)+"d", time.Now)
	}
	jw, x, err := startJobsJournal(log, op, reaper.JobsAuditTargets(plan.Target), second, x)
	if err != nil {
		return err
	}
	res, execErr := x.Execute(ctx, conn, plan, progress)
	execErr = endJournal(e.stdout, log.prefix, jw, res.Done, reaper.JobsAuditLine(plan, res), execErr)
	printFitted(e.stdout, c.wide, func(w io.Writer) { reaper.RenderJobsResult(w, op.action, res) })
	if execErr != nil && ctx.Err() != nil {
		reportStopped(e.stdout, op.title, plan, res)
	}
	if err := log.record(reaper.JobsAuditAction(op.action), reaper.JobsAuditTargets(plan.Target), res.Done, reaper.JobsAuditLine(plan, res), execErr); err != nil {
		if execErr != nil {
			return fmt.Errorf("%s: %w", op.title, err)
		}
		return err
	}
	if n := res.GoneCount + res.RescoredCount; n > 0 {
		return fmt.Errorf("%s: %s of %d not touched: they left or moved since the plan (see above)", op.title, jobsPlural(n, "job"), plan.Total)
	}
	return nil
}

// checkQueueDuplicates refuses a queue delete whose id matches jobs with
// different bytes: they are different jobs that share an id, and --force
// says that all of them go.
func checkQueueDuplicates(p reaper.JobsPlan) error {
	byID := map[string]int{}
	for _, it := range p.Items {
		if it.Job.Job != nil {
			byID[it.Job.Job.ID]++
		}
	}
	for _, r := range p.Target.Refs {
		if n := byID[r.ID]; n > 1 {
			return fmt.Errorf("job %s is in %s %d times with different bytes: --force deletes all of them", textsafe.Clean(r.ID), textsafe.Clean(p.Items[0].QueueKey), n)
		}
	}
	return nil
}

// timelineNote is what a requeue of dead jobs says before it runs: the
// dead set is the only record of the failures, and the timeline no longer
// shows those it takes out; the command (prefix: the command prefix in
// force) keeps a record of them first, its window reaching the oldest
// death planned. "" for every other plan.
func timelineNote(p reaper.JobsPlan, prefix string) string {
	if p.Action != reaper.JobsRequeue || p.Target.Set != model.SetDead || p.Total == 0 {
		return ""
	}
	oldest := math.Inf(1)
	if p.Matched.Valid {
		oldest = p.Matched.First.Score
	}
	for _, it := range p.Items {
		if it.Job.ScoreText != "" {
			oldest = math.Min(oldest, it.Job.Score)
		}
	}
	since := 6 * time.Hour // the timeline's default window
	if !math.IsInf(oldest, 1) {
		back := p.RedisTime.Sub(time.Unix(int64(oldest), 0))
		since = max(since, back.Truncate(time.Hour)+time.Hour)
	}
	return fmt.Sprintf("Note: the dead set is the only record of these failures: once they are\nrequeued, the timeline no longer shows them. To keep a record first, run:\n  %s timeline --json --since %s > timeline.json",
		prefix, strings.TrimSuffix(strings.TrimSuffix(since.String(), "0s"), "0m"))
}
