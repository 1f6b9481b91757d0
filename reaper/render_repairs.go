package reaper

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/workq-tui/workq-tui/model"
)

// RenderRequeuePlan writes a requeue plan as plain text: per list, where its
// jobs go and lock and lock_info[pool] before and after. It is what
// `requeue --dry-run` prints.
func RenderRequeuePlan(w io.Writer, p RequeuePlan) {
	fmt.Fprintf(w, "Requeue plan for namespace %s (Redis time %s, dead after %s):\n",
		rqClean(p.Namespace), p.RedisTime.UTC().Format(time.RFC3339), model.FormatAge(p.DeadAfter))
	for _, l := range p.Lists {
		fmt.Fprintf(w, "\n%s\n", rqClean(l.Key))
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
		fmt.Fprintf(w, "  job %s, pool %s (%s, %s)\n", rqClean(l.JobName), rqClean(l.PoolID), where, beat)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  jobs\t%d -> %s\n", l.Jobs, rqClean(l.QueueKey))
		fmt.Fprintf(tw, "  lock\t%s\n", rqBeforeAfter(l.LockPresent, l.LockBefore, l.LockAfter))
		fmt.Fprintf(tw, "  lock_info[%s]\t%s\n", rqClean(l.PoolID), rqBeforeAfter(l.LockInfoPresent, l.LockInfoBefore, l.LockInfoAfter))
		tw.Flush()
	}
	for _, k := range p.Missing {
		fmt.Fprintf(w, "\n%s: no such list (emptied already, or mistyped): skipped\n", rqClean(k))
	}
	fmt.Fprintf(w, "\nTotal: %s back to their queues from %s.\n", rqPlural(p.TotalJobs(), "job"), rqPlural(int64(len(p.Lists)), "list"))
	fmt.Fprintln(w, "Locks are released only while lock_info[pool] is above 0, never below 0. Each batch re-checks the pool's heartbeat: a pool alive again is left alone.")
}

func rqBeforeAfter(present bool, before, after int64) string {
	switch {
	case !present:
		return "absent, unchanged"
	case before == after:
		return fmt.Sprintf("%d, unchanged", before)
	}
	return fmt.Sprintf("%d -> %d", before, after)
}

// RenderRequeueResult writes what a requeue did.
func RenderRequeueResult(w io.Writer, r RequeueResult) {
	for _, l := range r.Lists {
		switch {
		case l.Err != nil:
			fmt.Fprintf(w, "%s: error after %s: %s\n", rqClean(l.Key), rqPlural(l.Moved, "job"), rqClean(l.Err.Error()))
		case l.Skipped != "":
			fmt.Fprintf(w, "%s: skipped: %s\n", rqClean(l.Key), rqClean(l.Skipped))
		default:
			info := "absent"
			if l.LockInfoPresent {
				info = strconv.FormatInt(l.LockInfoAfter, 10)
			}
			fmt.Fprintf(w, "%s: %s requeued, %d left; lock %d, lock_info[%s] %s\n",
				rqClean(l.Key), rqPlural(l.Moved, "job"), l.Remaining, l.LockAfter, rqClean(l.PoolID), info)
		}
	}
	fmt.Fprintf(w, "Done: %s requeued.\n", rqPlural(r.TotalMoved(), "job"))
}

// RenderLockRepairPlan writes a repair-locks plan: per job type, lock and
// each lock_info field before and after, and the in-progress lengths they
// come from.
func RenderLockRepairPlan(w io.Writer, p LockRepairPlan) {
	pools := 0
	if len(p.Jobs) > 0 {
		pools = len(p.Jobs[0].Pools)
	}
	fmt.Fprintf(w, "Lock repair plan for namespace %s (%s in worker_pools):\n", rqClean(p.Namespace), rqPlural(int64(pools), "pool"))
	for _, j := range p.Jobs {
		mc := "none"
		if j.MaxConcurrency > 0 {
			mc = strconv.FormatInt(j.MaxConcurrency, 10)
		}
		fmt.Fprintf(w, "\n%s (queued %d, max_concurrency %s)\n", rqClean(j.JobName), j.Queued, mc)
		if !j.Changes() {
			fmt.Fprintf(w, "  consistent: lock %d = in progress %d; nothing to change\n", j.LockAfter, j.LockAfter)
			continue
		}
		inSet := map[string]bool{}
		for _, pid := range j.Pools {
			inSet[pid] = true
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		before := "absent"
		switch {
		case j.LockBeforeRaw != "":
			before = strconv.Quote(rqClean(j.LockBeforeRaw))
		case j.LockPresent:
			before = strconv.FormatInt(j.LockBefore, 10)
		}
		after := strconv.FormatInt(j.LockAfter, 10)
		if !j.LockPresent && j.LockAfter == 0 {
			after = "absent"
		}
		fmt.Fprintf(tw, "  lock\t%s -> %s\n", before, after)
		for _, f := range j.LockInfoFields() {
			b, a := j.LockInfoChange(f)
			note := ""
			if !inSet[f] {
				note = " (not in worker_pools)"
			}
			fmt.Fprintf(tw, "  lock_info[%s]\t%s -> %s%s\n", rqClean(f), rqClean(b), a, note)
		}
		tw.Flush()
		if j.MaxConcurrency > 0 && j.LockPresent && j.LockBeforeRaw == "" && j.LockBefore >= j.MaxConcurrency && j.LockAfter < j.MaxConcurrency {
			fmt.Fprintf(w, "  the lock is at max_concurrency %d now, so no worker takes a job of this type\n", j.MaxConcurrency)
		}
	}
	fmt.Fprintln(w, "\nEach job type is one atomic step, refused if a pool joins or leaves worker_pools meanwhile.")
}

// RenderLockRepairResult writes what repair-locks did.
func RenderLockRepairResult(w io.Writer, r LockRepairResult) {
	for _, j := range r.Jobs {
		if j.Err != nil {
			fmt.Fprintf(w, "%s: not repaired: %s\n", rqClean(j.JobName), rqClean(j.Err.Error()))
			continue
		}
		var parts []string
		for _, f := range rqSortedKeys(j.LockInfoAfter) {
			parts = append(parts, fmt.Sprintf("%s=%d", rqClean(f), j.LockInfoAfter[f]))
		}
		info := "empty"
		if len(parts) > 0 {
			info = strings.Join(parts, " ")
		}
		fmt.Fprintf(w, "%s: lock %d, lock_info %s\n", rqClean(j.JobName), j.LockAfter, info)
	}
}

func rqSortedKeys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return rqSorted(out)
}

func rqPlural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// rqClean replaces control characters, so that text from Redis (job names,
// pool IDs, keys) cannot drive the terminal.
func rqClean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}
