// The reap plan from a snapshot: pure, for the CLI's dry run and the
// screen's confirm dialog alike.

package reaper

import (
	"fmt"
	"slices"
	"sort"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// NewPlan works out, from a snapshot, what reaping the target pools will do.
// It is pure: it reads only the snapshot.
//
// A target must be in the snapshot (else ErrUnknownPool) and dead (else
// ErrPoolAlive); both are wrapped with the pool ID. Targets.AllDead adds every
// dead pool of the snapshot; with no pool at all the error is ErrNothingToDo.
//
// The job types of a pool are its heartbeat's job_names, as upstream takes
// them; for a pool without a heartbeat (or without job_names) every job type
// the snapshot knows (known_jobs and every heartbeat's job_names). Reap
// adds the job types of in-progress lists it finds by SCAN. Lock and lock_info
// values before and after are computed pool after pool in plan order, with
// upstream's arithmetic: after the reap, lock is lock - lock_info[pool]
// (the per-job releases and the final subtraction together), set to 0 if it
// went below, whenever the field existed or jobs moved.
func NewPlan(snap *model.Snapshot, t Targets) (Plan, error) {
	if snap == nil {
		return Plan{}, fmt.Errorf("plan reap: no snapshot")
	}
	p := Plan{Namespace: snap.Namespace, RedisTime: snap.RedisTime, DeadAfter: snap.DeadAfter, LeakAware: snap.LeakAware || t.RequeueLeaked}
	if p.DeadAfter <= 0 {
		p.DeadAfter = model.DefaultDeadAfter
	}

	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, id := range t.PoolIDs {
		add(id)
	}
	if t.AllDead {
		for _, id := range snap.DeadPools() {
			add(id)
		}
	}
	if len(ids) == 0 {
		if t.AllDead {
			return Plan{}, fmt.Errorf("no dead pool in namespace %q: %w", snap.Namespace, ErrNothingToDo)
		}
		return Plan{}, fmt.Errorf("no pool given: %w", ErrNothingToDo)
	}

	allJobs := model.JobNames(snap)
	keys := redisq.NewKeys(snap.Namespace)
	// Running lock values per job type, and lock_info per job type and pool,
	// so that later pools of the plan see the earlier pools' effects.
	locks := map[string]int64{}
	for _, jt := range snap.JobTypes {
		locks[jt.Name] = jt.Lock
	}

	for _, id := range ids {
		pool, ok := snap.Pool(id)
		if !ok {
			return Plan{}, fmt.Errorf("pool %s: %w", id, ErrUnknownPool)
		}
		if pool.Status != model.StatusDead {
			return Plan{}, fmt.Errorf("pool %s is %s (%s): %w", id, pool.Status, beatDescription(pool), ErrPoolAlive)
		}
		pp := PoolPlan{PoolID: id}
		if pool.Heartbeat == nil || pool.Heartbeat.HeartbeatAtMissing {
			pp.HeartbeatMissing = true
		} else {
			pp.HeartbeatAt = pool.Heartbeat.HeartbeatAt
		}
		if pool.Heartbeat != nil && len(pool.Heartbeat.JobNames) > 0 {
			pp.JobNames = append([]string(nil), pool.Heartbeat.JobNames...)
		} else {
			pp.JobNames = append([]string(nil), allJobs...)
		}
		// In-progress lists of job types outside the list (the snapshot found
		// them): they are moved too.
		extra := make([]string, 0)
		for job := range pool.InProgress {
			if !slices.Contains(pp.JobNames, job) {
				extra = append(extra, job)
			}
		}
		sort.Strings(extra)
		pp.JobNames = append(pp.JobNames, extra...)

		if !t.RequeueLeaked {
			for _, l := range snap.Leaked {
				if l.PoolID == id {
					pp.Leaked = append(pp.Leaked, l)
				}
			}
		}
		for _, job := range pp.JobNames {
			n := pool.InProgress[job] - model.LeakedCount(pp.Leaked, job, id)
			info, present := pool.LockInfo[job]
			if n == 0 && !present {
				continue
			}
			jp := JobPlan{
				JobName:         job,
				InProgressKey:   keys.InProgress(job, id),
				QueueKey:        keys.Queue(job),
				Jobs:            n,
				LockBefore:      locks[job],
				LockInfoBefore:  info,
				LockInfoPresent: present,
			}
			jp.LockAfter = ExpectedLock(jp.LockBefore, info)
			locks[job] = jp.LockAfter
			pp.Jobs = append(pp.Jobs, jp)
		}
		p.Pools = append(p.Pools, pp)
	}
	return p, nil
}

// ExpectedLock is upstream's lock after reaping a pool that held lockInfo
// (0 when its field was missing) of a job type whose lock was lock, when the
// field existed or jobs moved: every moved job releases 1 from both, then
// what is left of the field is subtracted, then lock is set to 0 if below.
func ExpectedLock(lock, lockInfo int64) int64 {
	after := lock - lockInfo
	if after < 0 {
		after = 0
	}
	return after
}

func beatDescription(p *model.Pool) string {
	if p.HeartbeatAge != nil {
		return "last heartbeat " + model.FormatAge(*p.HeartbeatAge) + " ago"
	}
	if p.Heartbeat != nil && p.Heartbeat.HeartbeatAtMalformed {
		return "heartbeat_at is not a number"
	}
	return "heartbeat unknown"
}
