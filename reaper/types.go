// The types of a reap: its targets, its plan (per pool and job type), its
// progress and its result.

package reaper

import (
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// Targets say which pools to reap.
type Targets struct {
	PoolIDs []string
	AllDead bool
	// RequeueLeaked moves leaked in-progress entries (model.LeakedEntry)
	// back to their queues with the rest, as gocraft/work's own reaper
	// does; without it they are removed, not requeued (their jobs ran).
	RequeueLeaked bool
}

// Plan is what a reap will do, computed from a snapshot. It is what the
// screen and --dry-run show, and what Reaper.Reap carries out.
type Plan struct {
	Namespace string
	// RedisTime is the snapshot's Redis time; DeadAfter the cut-off used.
	RedisTime time.Time
	DeadAfter time.Duration
	Pools     []PoolPlan
	// LeakAware says the plan's snapshot looked for leaked entries (see
	// model.Snapshot.LeakAware), or they are requeued anyway: without it,
	// Reap looks for them in each pool first and leaves a pool that holds
	// any alone.
	LeakAware bool
}

// PoolPlan is the reap of one dead pool.
type PoolPlan struct {
	PoolID string
	// HeartbeatMissing is true when the plan saw no heartbeat hash (or no
	// heartbeat_at); else HeartbeatAt is the value seen. The script re-checks
	// both at execution time.
	HeartbeatMissing bool
	HeartbeatAt      int64
	Jobs             []JobPlan
	// JobNames are the job types whose in-progress lists are emptied and
	// whose lock_info[pool] is cleaned: the heartbeat's job_names, or every
	// known job type when there is no heartbeat (Reap adds those of lists
	// it finds by SCAN). Jobs lists only those with something to do.
	JobNames []string
	// Leaked are the pool's leaked in-progress entries (stand-ins of
	// jobs that already ran, see model.LeakedEntry): removed from its
	// lists before the reap moves the rest, not requeued, since requeueing
	// one runs its job again with older arguments. Empty with
	// Targets.RequeueLeaked.
	Leaked []model.LeakedEntry
}

// JobPlan is one job type of a pool being reaped.
type JobPlan struct {
	JobName       string
	InProgressKey string
	QueueKey      string
	// Jobs is how many jobs move from InProgressKey to QueueKey (pushed onto
	// the same end of the queue as upstream does, in the same order); the
	// pool's Leaked entries of this list are not among them.
	Jobs int64
	// Lock and this pool's lock_info field, before and after (after the
	// steps of earlier pools in the same plan).
	LockBefore, LockAfter         int64
	LockInfoBefore, LockInfoAfter int64
	// LockInfoPresent says the pool had a lock_info field for this type.
	LockInfoPresent bool
}

// TotalJobs is how many jobs the plan moves.
func (p Plan) TotalJobs() int64 {
	var n int64
	for _, pp := range p.Pools {
		n += pp.TotalJobs()
	}
	return n
}

// TotalJobs is how many jobs this pool's reap moves.
func (pp PoolPlan) TotalJobs() int64 {
	var n int64
	for _, j := range pp.Jobs {
		n += j.Jobs
	}
	return n
}

// Progress is called after each script call with the jobs moved so far and
// the planned total.
type Progress func(moved, total int64)

// Result is what a reap did.
type Result struct {
	Pools []PoolResult
	// Journal is the ID of the journal the action was recorded in, set by
	// the caller that kept one ("" without).
	Journal string
}

// PoolResult is what happened to one pool.
type PoolResult struct {
	PoolID string
	// Reaped is true when the pool was removed from the set.
	Reaped bool
	// Skipped explains why a pool was left alone, for example
	// "pool 1a2b... is alive again, not reaped".
	Skipped string
	// Moved is the number of jobs moved back per job name.
	Moved map[string]int64
	// LocksReleased is how much was subtracted from each job type's lock.
	LocksReleased map[string]int64
	// LockAfter is each job type's lock after the final step, for the job
	// types whose lock the reap touched.
	LockAfter map[string]int64
	// LeakedRemoved is how many leaked entries were removed per job name.
	LeakedRemoved map[string]int64
	// Gone is set when another process removed the pool from the set first
	// (another reaper, or a clean stop); Skipped then says so. With Left 0
	// nothing is left to do for it.
	Gone bool
	// Left is how many jobs were still in the pool's in-progress lists when
	// it was skipped because another process removed it from the set.
	Left int64
	Err  error
}

// TotalMoved is how many jobs the whole reap moved.
func (r Result) TotalMoved() int64 {
	var n int64
	for _, p := range r.Pools {
		for _, m := range p.Moved {
			n += m
		}
	}
	return n
}
