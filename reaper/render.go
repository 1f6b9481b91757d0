// The reap plan and its result as text: what `reap --dry-run` prints and
// what the screen's confirm dialog shows inside its border.

package reaper

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// timedPlanHeader is the first line of a plan read at Redis time at with a
// dead-after cut-off: what it is, for which namespace, when.
func timedPlanHeader(what, namespace string, at time.Time, deadAfter time.Duration) string {
	return fmt.Sprintf("%s plan for namespace %s (Redis time %s, dead after %s):\n",
		what, textsafe.Clean(namespace), at.UTC().Format(time.RFC3339), model.FormatAge(deadAfter))
}

// ReapPlanText is a reap plan as plain text: per pool, what moves where and
// the locks before and after. Lines wider than width display columns are
// wrapped (width <= 0: never). Every string from Redis is cleaned.
func ReapPlanText(p Plan, width int) string {
	var b strings.Builder
	b.WriteString(timedPlanHeader("Reap", p.Namespace, p.RedisTime, p.DeadAfter))
	for _, pp := range p.Pools {
		beat := "no heartbeat"
		if !pp.HeartbeatMissing {
			beat = "last heartbeat " + model.FormatAge(p.RedisTime.Sub(time.Unix(pp.HeartbeatAt, 0))) + " ago"
		}
		fmt.Fprintf(&b, "\npool %s (%s)\n", textsafe.Clean(pp.PoolID), beat)
		if len(pp.Jobs) == 0 {
			b.WriteString("  no job in progress, no lock held\n")
		} else {
			var t table
			t.add("  job type", "jobs", "to queue", "lock", "lock_info[pool]")
			for _, j := range pp.Jobs {
				info := "absent"
				if j.LockInfoPresent {
					info = fmt.Sprintf("%d -> deleted", j.LockInfoBefore)
				}
				t.add("  "+textsafe.Clean(j.JobName), fmt.Sprint(j.Jobs), textsafe.Clean(j.QueueKey),
					fmt.Sprintf("%d -> %d", j.LockBefore, j.LockAfter), info)
			}
			t.write(&b)
		}
		writeLeakedReap(&b, pp)
		if pp.HeartbeatMissing {
			b.WriteString("  then remove the pool from the worker_pools set\n")
		} else {
			b.WriteString("  then delete its heartbeat and remove it from the worker_pools set\n")
		}
	}
	fmt.Fprintf(&b, "\nTotal: %s back to their queues, %s removed.\n",
		model.Plural(p.TotalJobs(), "job", "jobs"), model.Plural(len(p.Pools), "pool", "pools"))
	b.WriteString("Each pool is re-checked when reaped: one that beat again is left alone.\n")
	return wrapText(b.String(), width)
}

// ReapResultText is what a reap did, per pool and job type, wrapped to
// width like ReapPlanText.
func ReapResultText(r Result, width int) string {
	var b strings.Builder
	var reaped int
	for _, pr := range r.Pools {
		switch {
		case pr.Err != nil:
			fmt.Fprintf(&b, "pool %s: error: %s\n", textsafe.Clean(pr.PoolID), textsafe.Clean(pr.Err.Error()))
		case pr.Skipped != "":
			fmt.Fprintf(&b, "pool %s: skipped: %s\n", textsafe.Clean(pr.PoolID), textsafe.Clean(pr.Skipped))
		case pr.Reaped:
			reaped++
			fmt.Fprintf(&b, "pool %s: reaped\n", textsafe.Clean(pr.PoolID))
		}
		writeLeakedRemoved(&b, pr)
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
			fmt.Fprintf(&b, "  %s: %s requeued", textsafe.Clean(j), model.Plural(pr.Moved[j], "job", "jobs"))
			a, ok := pr.LockAfter[j]
			switch released := pr.LocksReleased[j]; {
			case released > 0 && ok:
				fmt.Fprintf(&b, ", lock -%d, now %d", released, a)
			case released > 0:
				fmt.Fprintf(&b, ", lock -%d", released)
			case ok:
				fmt.Fprintf(&b, ", lock now %d", a)
			}
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "Done: %s requeued, %d of %s reaped.\n",
		model.Plural(r.TotalMoved(), "job", "jobs"), reaped, model.Plural(len(r.Pools), "pool", "pools"))
	return wrapText(b.String(), width)
}

// RenderReapPlan writes ReapPlanText(p, 0) to w: what `reap --dry-run`
// prints.
func RenderReapPlan(w io.Writer, p Plan) { fmt.Fprint(w, ReapPlanText(p, 0)) }

// RenderReapResult writes ReapResultText(r, 0) to w.
func RenderReapResult(w io.Writer, r Result) { fmt.Fprint(w, ReapResultText(r, 0)) }
