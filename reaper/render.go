package reaper

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// Render writes a plan as plain text: per pool, what moves where and the
// locks before and after. It is what --dry-run prints.
func Render(w io.Writer, p Plan) {
	fmt.Fprintf(w, "Reap plan for namespace %s (Redis time %s, dead after %s):\n",
		reapClean(p.Namespace), p.RedisTime.UTC().Format(time.RFC3339), model.FormatAge(p.DeadAfter))
	for _, pp := range p.Pools {
		beat := "no heartbeat"
		if !pp.HeartbeatMissing {
			beat = "last heartbeat " + model.FormatAge(p.RedisTime.Sub(time.Unix(pp.HeartbeatAt, 0))) + " ago"
		}
		fmt.Fprintf(w, "\npool %s (%s)\n", reapClean(pp.PoolID), beat)
		if len(pp.Jobs) == 0 {
			fmt.Fprintln(w, "  no job in progress, no lock held")
		} else {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  job type\tjobs\tto queue\tlock\tlock_info[pool]")
			for _, j := range pp.Jobs {
				info := "absent"
				if j.LockInfoPresent {
					info = fmt.Sprintf("%d -> deleted", j.LockInfoBefore)
				}
				fmt.Fprintf(tw, "  %s\t%d\t%s\t%d -> %d\t%s\n", reapClean(j.JobName), j.Jobs, reapClean(j.QueueKey), j.LockBefore, j.LockAfter, info)
			}
			tw.Flush()
		}
		if pp.HeartbeatMissing {
			fmt.Fprintln(w, "  then remove the pool from the worker_pools set")
		} else {
			fmt.Fprintln(w, "  then delete its heartbeat and remove it from the worker_pools set")
		}
	}
	fmt.Fprintf(w, "\nTotal: %s back to their queues, %s removed.\n", reapPlural(p.TotalJobs(), "job"), reapPlural(int64(len(p.Pools)), "pool"))
	fmt.Fprintln(w, "Each pool is re-checked when reaped: one that beat again is left alone.")
}

// RenderResult writes what a reap did, per pool and job type.
func RenderResult(w io.Writer, r Result) {
	var reaped int
	for _, pr := range r.Pools {
		switch {
		case pr.Err != nil:
			fmt.Fprintf(w, "pool %s: error: %s\n", reapClean(pr.PoolID), reapClean(pr.Err.Error()))
		case pr.Skipped != "":
			fmt.Fprintf(w, "pool %s: skipped: %s\n", reapClean(pr.PoolID), reapClean(pr.Skipped))
		case pr.Reaped:
			reaped++
			fmt.Fprintf(w, "pool %s: reaped\n", reapClean(pr.PoolID))
		}
		names := map[string]bool{}
		for j := range pr.Moved {
			names[j] = true
		}
		for j := range pr.LocksReleased {
			names[j] = true
		}
		for j := range pr.LockAfter {
			names[j] = true
		}
		sorted := make([]string, 0, len(names))
		for j := range names {
			sorted = append(sorted, j)
		}
		sort.Strings(sorted)
		for _, j := range sorted {
			line := fmt.Sprintf("  %s: %s requeued, lock -%d", reapClean(j), reapPlural(pr.Moved[j], "job"), pr.LocksReleased[j])
			if a, ok := pr.LockAfter[j]; ok {
				line += fmt.Sprintf(", now %d", a)
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintf(w, "Done: %s requeued, %d of %s reaped.\n", reapPlural(r.TotalMoved(), "job"), reaped, reapPlural(int64(len(r.Pools)), "pool"))
}

func reapPlural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// reapClean makes text from Redis (job names, pool IDs) safe to print.
func reapClean(s string) string { return textsafe.Clean(s) }
