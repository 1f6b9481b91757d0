// The requeue and repair-locks plans and their results as text: what
// `requeue --dry-run` and `repair-locks --dry-run` print and what the
// screen's confirm dialogs show inside their border.

package reaper

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// RequeuePlanText is a requeue plan as plain text: per list, where its jobs
// go and lock and lock_info[pool] before and after. Lines wider than width
// display columns are wrapped (width <= 0: never). Every string from Redis
// is cleaned.
func RequeuePlanText(p RequeuePlan, width int) string {
	var b strings.Builder
	b.WriteString(timedPlanHeader("Requeue", p.Namespace, p.RedisTime, p.DeadAfter))
	for _, l := range p.Lists {
		fmt.Fprintf(&b, "\n%s\n", textsafe.Clean(l.Key))
		where := "orphan: pool not in worker_pools"
		if l.PoolInSet {
			where = "dead pool still in worker_pools"
		}
		beat := "no heartbeat"
		switch {
		case l.HeartbeatUnread:
			beat = "heartbeat checked when run"
		case !l.HeartbeatMissing:
			beat = "last heartbeat " + model.FormatAge(p.RedisTime.Sub(time.Unix(l.HeartbeatAt, 0))) + " ago"
		}
		fmt.Fprintf(&b, "  job %s, pool %s (%s, %s)\n", textsafe.Clean(l.JobName), textsafe.Clean(l.PoolID), where, beat)
		var t table
		t.add("  jobs", fmt.Sprintf("%d -> %s", l.Jobs, textsafe.Clean(l.QueueKey)))
		t.add("  lock", beforeAfter(l.LockPresent, l.LockBefore, l.LockAfter))
		t.add("  lock_info["+textsafe.Clean(l.PoolID)+"]", beforeAfter(l.LockInfoPresent, l.LockInfoBefore, l.LockInfoAfter))
		t.write(&b)
		if l.Paused {
			fmt.Fprintf(&b, "  %s is paused: these jobs wait in its queue until it is unpaused\n", textsafe.Clean(l.JobName))
		}
	}
	for _, k := range p.Missing {
		fmt.Fprintf(&b, "\n%s: no such list (emptied already, or mistyped): skipped\n", textsafe.Clean(k))
	}
	fmt.Fprintf(&b, "\nTotal: %s back to their queues from %s.\n",
		model.Plural(p.TotalJobs(), "job", "jobs"), model.Plural(len(p.Lists), "list", "lists"))
	b.WriteString("Locks are released only while lock_info[pool] is above 0, never below 0. Each batch re-checks the pool's heartbeat: a pool alive again is left alone.\n")
	return wrapText(b.String(), width)
}

func beforeAfter(present bool, before, after int64) string {
	switch {
	case !present:
		return "absent, unchanged"
	case before == after:
		return fmt.Sprintf("%d, unchanged", before)
	}
	return fmt.Sprintf("%d -> %d", before, after)
}

// RequeueResultText is what a requeue did, wrapped to width like
// RequeuePlanText.
func RequeueResultText(r RequeueResult, width int) string {
	var b strings.Builder
	for _, l := range r.Lists {
		switch {
		case l.Err != nil:
			fmt.Fprintf(&b, "%s: error after %s: %s\n", textsafe.Clean(l.Key), model.Plural(l.Moved, "job", "jobs"), textsafe.Clean(l.Err.Error()))
		case l.Skipped != "":
			fmt.Fprintf(&b, "%s: skipped: %s\n", textsafe.Clean(l.Key), textsafe.Clean(l.Skipped))
		default:
			info := "absent"
			if l.LockInfoPresent {
				info = strconv.FormatInt(l.LockInfoAfter, 10)
			}
			fmt.Fprintf(&b, "%s: %s requeued, %d left; lock %d, lock_info[%s] %s\n",
				textsafe.Clean(l.Key), model.Plural(l.Moved, "job", "jobs"), l.Remaining, l.LockAfter, textsafe.Clean(l.PoolID), info)
		}
	}
	fmt.Fprintf(&b, "Done: %s requeued.\n", model.Plural(r.TotalMoved(), "job", "jobs"))
	return wrapText(b.String(), width)
}

// LockRepairPlanText is a repair-locks plan as plain text: per job type,
// lock and each lock_info field before and after, and the in-progress
// lengths they come from. Wrapped to width like RequeuePlanText.
func LockRepairPlanText(p LockRepairPlan, width int) string {
	var b strings.Builder
	pools := 0
	if len(p.Jobs) > 0 {
		pools = len(p.Jobs[0].Pools)
	}
	fmt.Fprintf(&b, "Lock repair plan for namespace %s (%s in worker_pools):\n", textsafe.Clean(p.Namespace), model.Plural(pools, "pool", "pools"))
	for _, j := range p.Jobs {
		mc := "none"
		if j.MaxConcurrency > 0 {
			mc = strconv.FormatInt(j.MaxConcurrency, 10)
		}
		fmt.Fprintf(&b, "\n%s (queued %d, max_concurrency %s)\n", textsafe.Clean(j.JobName), j.Queued, mc)
		if !j.Changes() {
			fmt.Fprintf(&b, "  consistent: lock %d = in progress %d; nothing to change\n", j.LockAfter, j.LockAfter)
			writeLeakedNote(&b, j)
			continue
		}
		inSet := map[string]bool{}
		for _, pid := range j.Pools {
			inSet[pid] = true
		}
		var t table
		before := "absent"
		switch {
		case j.LockBeforeRaw != "":
			before = strconv.Quote(textsafe.Clean(j.LockBeforeRaw))
		case j.LockPresent:
			before = strconv.FormatInt(j.LockBefore, 10)
		}
		after := strconv.FormatInt(j.LockAfter, 10)
		if !j.LockPresent && j.LockAfter == 0 {
			after = "absent"
		}
		t.add("  lock", before+" -> "+after)
		for _, f := range j.LockInfoFields() {
			bf, af := j.LockInfoChange(f)
			note := ""
			if !inSet[f] {
				note = " (not in worker_pools)"
			}
			t.add("  lock_info["+textsafe.Clean(f)+"]", textsafe.Clean(bf)+" -> "+af+note)
		}
		t.write(&b)
		writeLeakedNote(&b, j)
		if j.MaxConcurrency > 0 && j.LockPresent && j.LockBeforeRaw == "" && j.LockBefore >= j.MaxConcurrency && j.LockAfter < j.MaxConcurrency {
			fmt.Fprintf(&b, "  the lock is at max_concurrency %d now, so no worker takes a job of this type\n", j.MaxConcurrency)
		}
	}
	b.WriteString("\nEach job type is one atomic step, refused if a pool joins or leaves worker_pools meanwhile.\n")
	return wrapText(b.String(), width)
}

// LockRepairResultText is what repair-locks did, wrapped to width like
// LockRepairPlanText.
func LockRepairResultText(r LockRepairResult, width int) string {
	var b strings.Builder
	for _, j := range r.Jobs {
		if j.Err != nil {
			fmt.Fprintf(&b, "%s: not repaired: %s\n", textsafe.Clean(j.JobName), textsafe.Clean(j.Err.Error()))
			continue
		}
		fields := make([]string, 0, len(j.LockInfoAfter))
		for f := range j.LockInfoAfter {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		var parts []string
		for _, f := range fields {
			parts = append(parts, fmt.Sprintf("%s=%d", textsafe.Clean(f), j.LockInfoAfter[f]))
		}
		info := "empty"
		if len(parts) > 0 {
			info = strings.Join(parts, " ")
		}
		fmt.Fprintf(&b, "%s: lock %d, lock_info %s\n", textsafe.Clean(j.JobName), j.LockAfter, info)
	}
	return wrapText(b.String(), width)
}

// RenderRequeuePlan writes RequeuePlanText(p, 0) to w: what
// `requeue --dry-run` prints.
func RenderRequeuePlan(w io.Writer, p RequeuePlan) { fmt.Fprint(w, RequeuePlanText(p, 0)) }

// RenderRequeueResult writes RequeueResultText(r, 0) to w.
func RenderRequeueResult(w io.Writer, r RequeueResult) { fmt.Fprint(w, RequeueResultText(r, 0)) }

// RenderLockRepairPlan writes LockRepairPlanText(p, 0) to w: what
// `repair-locks --dry-run` prints.
func RenderLockRepairPlan(w io.Writer, p LockRepairPlan) { fmt.Fprint(w, LockRepairPlanText(p, 0)) }

// RenderLockRepairResult writes LockRepairResultText(r, 0) to w.
func RenderLockRepairResult(w io.Writer, r LockRepairResult) {
	fmt.Fprint(w, LockRepairResultText(r, 0))
}
