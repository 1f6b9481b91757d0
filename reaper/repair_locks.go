// Repair-locks: resetting a drifted job type's lock and lock_info from its
// in-progress lists. The plan read from Redis, its execution, and their
// types; NewLockRepairPlan (plan_repairs.go) plans from a snapshot.

package reaper

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// LockRepairPlan is what repair-locks will do, per job type.
type LockRepairPlan struct {
	Namespace string
	Jobs      []JobLockPlan
	// LeakAware says the plan looked for leaked in-progress entries
	// (PlanRepairLocks always does; a plan from a snapshot does when the
	// snapshot did, see model.Snapshot.LeakAware). Without it, RepairLocks
	// looks for them in each job type's lists first and leaves a type that
	// holds any the plan did not list alone.
	LeakAware bool
}

// JobLockPlan is the repair of one job type's lock and lock_info.
type JobLockPlan struct {
	JobName string
	// Pools are the members of <ns>:worker_pools at plan time, sorted; the
	// script refuses if the set is not exactly this when it runs.
	Pools []string
	// InProgress is the length of each pool's in-progress list of this type
	// (pools holding none are left out).
	InProgress map[string]int64
	// LockPresent says the lock key exists; LockBefore is its value, and
	// LockBeforeRaw the text when it is not an integer.
	LockPresent   bool
	LockBefore    int64
	LockBeforeRaw string
	// LockInfoBefore is the whole hash as read (values as text, since a
	// drifted hash may hold anything).
	LockInfoBefore map[string]string
	// LockAfter and LockInfoAfter are what the script will write.
	LockAfter     int64
	LockInfoAfter map[string]int64
	// MaxConcurrency (0 = none) and Queued are shown with the plan.
	MaxConcurrency int64
	Queued         int64
	// Leaked are the in-progress entries left out of LockAfter and
	// LockInfoAfter: stand-ins of jobs that already ended (see
	// model.LeakedEntry). The script re-checks that each is still there.
	Leaked []model.LeakedEntry
}

// Changes reports whether the repair would change anything.
func (j JobLockPlan) Changes() bool {
	switch {
	case j.LockBeforeRaw != "":
		return true
	case !j.LockPresent && j.LockAfter != 0:
		return true
	case j.LockPresent && j.LockBefore != j.LockAfter:
		return true
	}
	if len(j.LockInfoBefore) != len(j.LockInfoAfter) {
		return true
	}
	for f, v := range j.LockInfoAfter {
		if j.LockInfoBefore[f] != strconv.FormatInt(v, 10) {
			return true
		}
	}
	return false
}

// Changes reports whether the plan would change anything.
func (p LockRepairPlan) Changes() bool {
	for _, j := range p.Jobs {
		if j.Changes() {
			return true
		}
	}
	return false
}

// LockRepairResult is what repair-locks did.
type LockRepairResult struct {
	Jobs []JobLockResult
	// Journal is the ID of the journal the action was recorded in, set by
	// the caller that kept one ("" without).
	Journal string
}

// JobLockResult is the outcome for one job type.
type JobLockResult struct {
	JobName string
	// Applied is true when the script wrote the new values.
	Applied       bool
	LockAfter     int64
	LockInfoAfter map[string]int64
	Err           error
}

// Err joins the errors of the job types.
func (r LockRepairResult) Err() error {
	return joinErrors(r.Jobs, func(j JobLockResult) error { return j.Err })
}

// PlanRepairLocks reads, for each job type, the set, the in-progress list
// of every pool in it, lock, lock_info, max_concurrency and the queue
// length, and returns what the repair would write. A job type with no key at
// all, or a key of the wrong type, fails the whole plan; nothing is written.
func (r *Reaper) PlanRepairLocks(ctx context.Context, jobs []string) (LockRepairPlan, error) {
	keys := r.keys
	plan := LockRepairPlan{Namespace: strings.TrimSuffix(keys.Prefix(), ":"), LeakAware: true}
	if len(jobs) == 0 {
		return plan, errors.New("repair-locks: no job type given")
	}
	for _, job := range jobs {
		if job == "" {
			return plan, errors.New("repair-locks: empty job name")
		}
	}
	c, err := r.conn(ctx, "repair-locks")
	if err != nil {
		return plan, err
	}
	defer c.Close()
	if err := expectType(ctx, c, keys.WorkerPools(), "set"); err != nil && !errors.Is(err, errNoKey) {
		return plan, fmt.Errorf("repair-locks: %w", err)
	}
	members, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", keys.WorkerPools()))
	if err != nil {
		return plan, fmt.Errorf("repair-locks: read %s: %w", keys.WorkerPools(), err)
	}
	pools := slices.Sorted(slices.Values(members))
	known := map[string]bool{}
	if err := expectType(ctx, c, keys.KnownJobs(), "set"); err == nil {
		names, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", keys.KnownJobs()))
		if err != nil {
			return plan, fmt.Errorf("repair-locks: read %s: %w", keys.KnownJobs(), err)
		}
		for _, n := range names {
			known[n] = true
		}
	}
	seen := map[string]bool{}
	for _, job := range jobs {
		if seen[job] {
			continue
		}
		seen[job] = true
		jp, err := planJobLocks(ctx, c, keys, job, pools, known[job])
		if err != nil {
			return plan, fmt.Errorf("repair-locks %s: %w", job, err)
		}
		plan.Jobs = append(plan.Jobs, jp)
	}
	return plan, nil
}

func planJobLocks(ctx context.Context, c redis.Conn, keys redisq.Keys, job string, pools []string, known bool) (JobLockPlan, error) {
	jp := JobLockPlan{JobName: job, Pools: pools, InProgress: map[string]int64{}, LockInfoAfter: map[string]int64{}}
	exists := known
	for key, typ := range map[string]string{keys.Lock(job): "string", keys.LockInfo(job): "hash", keys.Queue(job): "list", keys.MaxConcurrency(job): "string"} {
		err := expectType(ctx, c, key, typ)
		switch {
		case err == nil:
			exists = true
		case !errors.Is(err, errNoKey):
			return jp, err
		}
	}
	for _, p := range pools {
		k := keys.InProgress(job, p)
		err := expectType(ctx, c, k, "list")
		switch {
		case errors.Is(err, errNoKey):
			continue
		case err != nil:
			return jp, err
		}
		exists = true
		n, err := redis.Int64(redis.DoContext(c, ctx, "LLEN", k))
		if err != nil {
			return jp, fmt.Errorf("llen %s: %w", k, err)
		}
		if n > 0 {
			jp.InProgress[p] = n
			jp.LockInfoAfter[p] = n
			jp.LockAfter += n
		}
	}
	if !exists {
		return jp, fmt.Errorf("%w: no queue, lock or in-progress list, and not in %s", ErrUnknownJob, keys.KnownJobs())
	}
	raw, err := redis.String(redis.DoContext(c, ctx, "GET", keys.Lock(job)))
	switch {
	case errors.Is(err, redis.ErrNil):
	case err != nil:
		return jp, fmt.Errorf("get %s: %w", keys.Lock(job), err)
	default:
		jp.LockPresent = true
		if n, perr := strconv.ParseInt(raw, 10, 64); perr == nil {
			jp.LockBefore = n
		} else {
			jp.LockBeforeRaw = raw
		}
	}
	if jp.LockInfoBefore, err = redis.StringMap(redis.DoContext(c, ctx, "HGETALL", keys.LockInfo(job))); err != nil {
		return jp, fmt.Errorf("hgetall %s: %w", keys.LockInfo(job), err)
	}
	if err := excludeLeaked(ctx, c, keys, &jp); err != nil {
		return jp, err
	}
	mc, _, err := getInt(ctx, c, "GET", keys.MaxConcurrency(job))
	if err != nil && !errors.Is(err, ErrBadValue) {
		return jp, err
	}
	jp.MaxConcurrency = mc
	if jp.Queued, err = redis.Int64(redis.DoContext(c, ctx, "LLEN", keys.Queue(job))); err != nil {
		return jp, fmt.Errorf("llen %s: %w", keys.Queue(job), err)
	}
	return jp, nil
}

// RepairLocks runs one atomic script per job type of the plan, on one
// connection. The
// script re-reads the set and refuses (ErrSetChanged, nothing written) when
// it differs from the plan's; other job types go on. A job type whose plan
// changes nothing is still run: the script then writes the same values.
func (r *Reaper) RepairLocks(ctx context.Context, plan LockRepairPlan) (LockRepairResult, error) {
	c, err := r.conn(ctx, "repair-locks")
	if err != nil {
		return LockRepairResult{}, err
	}
	defer c.Close()
	var res LockRepairResult
	for _, jp := range plan.Jobs {
		if err := ctx.Err(); err != nil {
			res.Jobs = append(res.Jobs, JobLockResult{JobName: jp.JobName, Err: fmt.Errorf("repair-locks %s: %w", jp.JobName, err)})
			break
		}
		if !plan.LeakAware {
			if err := unlistedLockLeaks(ctx, c, r.keys, jp); err != nil {
				res.Jobs = append(res.Jobs, JobLockResult{JobName: jp.JobName, Err: err})
				continue
			}
		}
		jr := r.repairJob(ctx, c, jp)
		res.Jobs = append(res.Jobs, jr)
	}
	return res, res.Err()
}

// repairJob runs the repair script for one job type.
func (r *Reaper) repairJob(ctx context.Context, c redis.Conn, jp JobLockPlan) JobLockResult {
	keys := r.keys
	jr := JobLockResult{JobName: jp.JobName}
	args := make([]interface{}, 0, 2+2*len(jp.Pools)+1)
	args = append(args, 3+len(jp.Pools), keys.WorkerPools(), keys.Lock(jp.JobName), keys.LockInfo(jp.JobName))
	for _, p := range jp.Pools {
		args = append(args, keys.InProgress(jp.JobName, p))
	}
	for _, p := range jp.Pools {
		args = append(args, p)
	}
	args = append(args, leakedArgs(jp)...)
	v, err := redis.Values(r.scripts.repairLocks.DoContext(ctx, c, args...))
	if err != nil {
		jr.Err = fmt.Errorf("repair-locks %s: %w", jp.JobName, err)
		return jr
	}
	var status string
	if len(v) > 0 {
		status, _ = redis.String(v[0], nil)
	}
	switch status {
	case "ok":
	case "changed":
		jr.Err = fmt.Errorf("repair-locks %s: %w (a pool started or was reaped); nothing changed, plan again", jp.JobName, ErrSetChanged)
		return jr
	case "wrongtype":
		key := ""
		if len(v) > 1 {
			key, _ = redis.String(v[1], nil)
		}
		jr.Err = fmt.Errorf("repair-locks %s: %s: %w", jp.JobName, key, ErrWrongType)
		return jr
	default:
		jr.Err = fmt.Errorf("repair-locks %s: unexpected script reply %v", jp.JobName, v)
		return jr
	}
	if len(v) < 2 || len(v)%2 != 0 {
		jr.Err = fmt.Errorf("repair-locks %s: unexpected script reply %v", jp.JobName, v)
		return jr
	}
	jr.Applied = true
	jr.LockAfter, _ = redis.Int64(v[1], nil)
	jr.LockInfoAfter = map[string]int64{}
	for i := 2; i+1 < len(v); i += 2 {
		f, _ := redis.String(v[i], nil)
		n, _ := redis.Int64(v[i+1], nil)
		jr.LockInfoAfter[f] = n
	}
	return jr
}

// LockInfoChange is field f of lock_info before and after the repair, in
// words: the raw value before ("absent" when missing), and the new count
// after ("removed" when the repair deletes it). Text from Redis is returned
// as read: callers clean it for their output.
func (j JobLockPlan) LockInfoChange(f string) (before, after string) {
	before, ok := j.LockInfoBefore[f]
	if !ok {
		before = "absent"
	}
	after = "removed"
	if n, ok := j.LockInfoAfter[f]; ok {
		after = strconv.FormatInt(n, 10)
	}
	return before, after
}

// LockInfoFields returns the fields of before and after together, sorted,
// for showing a plan.
func (j JobLockPlan) LockInfoFields() []string {
	set := map[string]bool{}
	for f := range j.LockInfoBefore {
		set[f] = true
	}
	for f := range j.LockInfoAfter {
		set[f] = true
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
