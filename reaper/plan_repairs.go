// The repairs planned from a snapshot, without reading Redis, for the
// screen: requeue of in-progress lists and repair of a job type's locks.

package reaper

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// NewRequeuePlan works out, from a snapshot (with its orphan scan), what
// requeueing the given in-progress lists will do. It is pure, for the
// screen, which plans from the last snapshot; the command line plans with
// Reaper.PlanRequeue, which reads Redis. A key must be an in-progress list
// of the snapshot's namespace held by a dead pool of the snapshot or listed
// among its orphans; the script re-checks the pool and the types when it
// runs.
// For an orphan, the snapshot has not read the pool's heartbeat: the plan
// says so (HeartbeatUnread) and the script checks it.
func NewRequeuePlan(snap *model.Snapshot, listKeys []string) (RequeuePlan, error) {
	if snap == nil {
		return RequeuePlan{}, fmt.Errorf("plan requeue: no snapshot")
	}
	plan := RequeuePlan{Namespace: snap.Namespace, RedisTime: snap.RedisTime, DeadAfter: snap.DeadAfter}
	if plan.DeadAfter <= 0 {
		plan.DeadAfter = model.DefaultDeadAfter
	}
	if len(listKeys) == 0 {
		return plan, fmt.Errorf("requeue: no in-progress list given")
	}
	keys := redisq.NewKeys(snap.Namespace)
	orphans := map[string]model.InProgressList{}
	for _, o := range snap.Orphans {
		orphans[o.Key] = o
	}
	lockNow := map[string]int64{}
	seen := map[string]bool{}
	for _, k := range listKeys {
		if seen[k] {
			continue
		}
		seen[k] = true
		job, pool, ok := keys.ParseInProgress(k)
		if !ok {
			return plan, fmt.Errorf("requeue %q: %w %q", k, ErrNotInProgressKey, snap.Namespace)
		}
		lp := ListPlan{Key: k, JobName: job, PoolID: pool, QueueKey: keys.Queue(job), PoolStatus: model.StatusDead}
		if p, ok := snap.Pool(pool); ok {
			if p.Status != model.StatusDead {
				return plan, fmt.Errorf("requeue %s: pool %s: %w (it is %s)", k, pool, ErrPoolAlive, p.Status)
			}
			lp.PoolInSet = true
			lp.Jobs = p.InProgress[job]
			if p.Heartbeat == nil || p.Heartbeat.HeartbeatAtMissing {
				lp.HeartbeatMissing = true
			} else {
				lp.HeartbeatAt = p.Heartbeat.HeartbeatAt
			}
		} else if o, ok := orphans[k]; ok {
			lp.Jobs = o.Length
			lp.HeartbeatUnread = true
		}
		if lp.Jobs == 0 {
			return plan, fmt.Errorf("requeue %s: %w (nothing to move)", k, ErrNoSuchList)
		}
		if jt, ok := snap.JobType(job); ok {
			lp.LockPresent = true
			lp.LockBefore = jt.Lock
			lp.LockInfoBefore, lp.LockInfoPresent = jt.LockInfo[pool]
			lp.Paused = jt.Paused
		}
		if l, ok := lockNow[job]; ok {
			lp.LockBefore = l
		}
		release := min(lp.Jobs, max(lp.LockInfoBefore, 0))
		lp.LockInfoAfter = lp.LockInfoBefore - release
		lp.LockAfter = lp.LockBefore
		if lp.LockPresent {
			lp.LockAfter = max(lp.LockBefore-release, 0)
		}
		lockNow[job] = lp.LockAfter
		plan.Lists = append(plan.Lists, lp)
	}
	return plan, nil
}

// NewLockRepairPlan works out, from a snapshot, what repairing the locks of
// the given job types will do: lock := the total in-progress length of the
// pools in the set, lock_info := each such pool's non-zero length. It is
// pure; the script computes the values again from Redis when it runs, and
// refuses if the set is no longer the snapshot's.
func NewLockRepairPlan(snap *model.Snapshot, jobs []string) (LockRepairPlan, error) {
	if snap == nil {
		return LockRepairPlan{}, fmt.Errorf("plan repair-locks: no snapshot")
	}
	plan := LockRepairPlan{Namespace: snap.Namespace, LeakAware: snap.LeakAware}
	if len(jobs) == 0 {
		return plan, fmt.Errorf("repair-locks: no job type given")
	}
	pools := make([]string, 0, len(snap.Pools))
	for _, p := range snap.Pools {
		pools = append(pools, p.ID)
	}
	sort.Strings(pools)
	known := map[string]bool{}
	for _, n := range model.JobNames(snap) {
		known[n] = true
	}
	seen := map[string]bool{}
	for _, job := range jobs {
		if seen[job] {
			continue
		}
		seen[job] = true
		jp := JobLockPlan{JobName: job, Pools: pools, InProgress: map[string]int64{}, LockInfoAfter: map[string]int64{}, LockInfoBefore: map[string]string{}}
		for _, p := range snap.Pools {
			if n := p.InProgress[job]; n > 0 {
				jp.InProgress[p.ID] = n
				jp.LockInfoAfter[p.ID] = n
				jp.LockAfter += n
			}
		}
		for _, l := range snap.Leaked {
			if l.JobName == job && jp.LockInfoAfter[l.PoolID] > 0 {
				jp.Leaked = append(jp.Leaked, l)
				jp.LockAfter--
				if jp.LockInfoAfter[l.PoolID]--; jp.LockInfoAfter[l.PoolID] == 0 {
					delete(jp.LockInfoAfter, l.PoolID)
				}
			}
		}
		jt, ok := snap.JobType(job)
		if !ok && !known[job] && len(jp.InProgress) == 0 {
			return plan, fmt.Errorf("repair-locks %s: %w", job, ErrUnknownJob)
		}
		if ok {
			jp.LockPresent = true
			jp.LockBefore = jt.Lock
			for f, v := range jt.LockInfo {
				jp.LockInfoBefore[f] = strconv.FormatInt(v, 10)
			}
			jp.MaxConcurrency, jp.Queued = jt.MaxConcurrency, jt.Queued
		}
		plan.Jobs = append(plan.Jobs, jp)
	}
	return plan, nil
}

// InProgressLists are the keys of a pool's non-empty in-progress lists in
// a namespace, by job name: what requeueing a dead pool's jobs takes. It
// builds key names only.
func InProgressLists(namespace string, p model.Pool) []string {
	keys := redisq.NewKeys(namespace)
	var out []string
	for _, job := range slices.Sorted(maps.Keys(p.InProgress)) {
		if p.InProgress[job] > 0 {
			out = append(out, keys.InProgress(job, p.ID))
		}
	}
	return out
}
