package reaper

// This file draws drain plans and results (drain.go) for the command line.
// Every text from Redis goes through textsafe.

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// drainSample is how many jobs a plan lists.
const drainSample = 10

// RenderDrainPlan writes what a drain will do: the jobs matched, the first
// few, their unique keys, where parked jobs go and what undo does.
func RenderDrainPlan(w io.Writer, p DrainPlan) {
	c := textsafe.Clean
	fmt.Fprintf(w, "Queue %s (%s): %s queued when read; %s match %s.\n",
		c(p.Job), c(p.Queue), model.Plural(p.Length, "job", "jobs"), model.Plural(int64(len(p.Items)), "job", "jobs"), strconv.Quote(c(p.Query.Text)))
	if len(p.Items) == 0 {
		return
	}
	for i, it := range p.Items {
		if i == drainSample {
			fmt.Fprintf(w, "  ... and %d more\n", len(p.Items)-drainSample)
			break
		}
		at := "-"
		if it.Job.EnqueuedAt != 0 {
			at = time.Unix(it.Job.EnqueuedAt, 0).UTC().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(w, "  #%d  %s  %s  %s\n", it.Position+1, at, c(orDash(it.Job.ID)), textsafe.Cut(c(string(it.Job.Args)), 60))
	}
	unique := 0
	for _, it := range p.Items {
		if it.UniqueKey != "" {
			unique++
		}
	}
	if unique > 0 {
		fmt.Fprintf(w, "%s: their unique keys are deleted with them, as a delete by id does.\n", model.Plural(int64(unique), "unique job", "unique jobs"))
	}
	verb := "Deleted"
	if p.Action == DrainPark {
		verb = "Parked"
		fmt.Fprintf(w, "Parked jobs go to %sdead with err %s and failed_at now, to be read and requeued there like any dead job.\n", c(p.keys.Prefix()), strconv.Quote(ParkedError))
	}
	fmt.Fprintf(w, "%s jobs are taken in run order, in batches; a job a worker took since the plan is left alone. Undo puts each back just behind the job that was ahead of it while that job is still queued, else at the queue's head (to run next): the queue has moved past its place.\n", verb)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// RenderDrainResult writes what a drain did.
func RenderDrainResult(w io.Writer, action DrainAction, r DrainResult) {
	verb := "deleted"
	if action == DrainPark {
		verb = "parked"
	}
	line := fmt.Sprintf("Done: %s %s", model.Plural(r.Done, "job", "jobs"), verb)
	if r.UniqueDeleted > 0 {
		line += fmt.Sprintf(", %s deleted", model.Plural(r.UniqueDeleted, "unique key", "unique keys"))
	}
	fmt.Fprintln(w, line+".")
	if r.Gone > 0 {
		fmt.Fprintf(w, "Not touched: %s left the queue since the plan (a worker took them).\n", model.Plural(r.Gone, "job", "jobs"))
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "Not touched: %s that cannot be parked (not a JSON object).\n", model.Plural(r.Skipped, "job", "jobs"))
	}
}

// DrainAuditAction is the audit log's name of a drain.
func DrainAuditAction(a DrainAction) string {
	if a == DrainPark {
		return "queue-park"
	}
	return "queue-delete-where"
}

// DrainAuditTargets are a drain's targets on its audit line, in the words
// of the other job actions (JobsAuditTargets): the queue, all, the query.
func DrainAuditTargets(p DrainPlan) []string {
	return []string{"queue=" + p.Job, "all", "where=" + p.Query.Text}
}

// DrainAuditLine is a drain's result on its audit line.
func DrainAuditLine(p DrainPlan, r DrainResult) string {
	verb := "deleted"
	if p.Action == DrainPark {
		verb = "parked"
	}
	return fmt.Sprintf("%d of %d matching %s, %d gone, %d unique keys deleted", r.Done, len(p.Items), verb, r.Gone, r.UniqueDeleted)
}
