// Requeue: moving the jobs of chosen in-progress lists (an orphan's, a dead
// pool's) back to their queues. The plan read from Redis, its execution,
// and their types; NewRequeuePlan (plan_repairs.go) plans from a snapshot.

package reaper

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// RequeuePlan is what a requeue will do: for each in-progress list, how many
// jobs go back to which queue, and lock and lock_info before and after.
type RequeuePlan struct {
	Namespace string
	RedisTime time.Time
	DeadAfter time.Duration
	Lists     []ListPlan
	// Missing are keys given that hold no list (emptied by an interrupted
	// earlier run, or mistyped): left out, and shown with the plan.
	Missing []string
}

// ListPlan is the requeue of one in-progress list.
type ListPlan struct {
	Key      string
	JobName  string
	PoolID   string
	QueueKey string
	// Jobs is the list's length at plan time.
	Jobs int64
	// PoolInSet says the pool is still in <ns>:worker_pools (a dead pool not
	// yet reaped); false for an orphan.
	PoolInSet bool
	// PoolStatus is dead: a live pool's list is refused at plan time.
	// HeartbeatMissing says there is no heartbeat (or no heartbeat_at); else
	// HeartbeatAt is the value seen.
	PoolStatus       model.Status
	HeartbeatMissing bool
	HeartbeatAt      int64
	// HeartbeatUnread is set by NewRequeuePlan for an orphan: the snapshot
	// does not read the heartbeats of pools outside the set. The script
	// checks it when it runs.
	HeartbeatUnread bool
	// Lock of the job type and this pool's lock_info field, before and after
	// (after the lists before this one in the plan). LockPresent and
	// LockInfoPresent say whether the key and field exist.
	LockPresent                   bool
	LockBefore, LockAfter         int64
	LockInfoPresent               bool
	LockInfoBefore, LockInfoAfter int64
	// Paused says the job type is paused (<ns>:jobs:<name>:paused set):
	// the jobs go back to a queue no worker takes from until it is
	// unpaused.
	Paused bool
}

// TotalJobs is how many jobs the plan moves.
func (p RequeuePlan) TotalJobs() int64 {
	var n int64
	for _, l := range p.Lists {
		n += l.Jobs
	}
	return n
}

// RequeueResult is what a requeue did.
type RequeueResult struct {
	Lists []ListResult
	// Journal is the ID of the journal the action was recorded in, set by
	// the caller that kept one ("" without).
	Journal string
}

// ListResult is what happened to one list.
type ListResult struct {
	Key    string
	PoolID string
	// Moved is how many jobs went back to the queue.
	Moved int64
	// Remaining is the list's length after the last script call.
	Remaining int64
	// LockAfter and LockInfoAfter are the values the last script call left.
	// LockInfoPresent is the plan's: the script never creates the field.
	LockAfter, LockInfoAfter int64
	LockInfoPresent          bool
	// Skipped explains why a list was left alone (its pool is alive again).
	Skipped string
	Err     error
}

// TotalMoved is how many jobs the requeue moved.
func (r RequeueResult) TotalMoved() int64 {
	var n int64
	for _, l := range r.Lists {
		n += l.Moved
	}
	return n
}

// Err joins the errors of the lists.
func (r RequeueResult) Err() error {
	return joinErrors(r.Lists, func(l ListResult) error { return l.Err })
}

// PlanRequeue reads what it needs from Redis (TIME, the set, each list's
// type and length, its pool's heartbeat, the job type's lock and lock_info)
// and returns the plan. Any key that is not an in-progress list of the
// namespace, missing, of the wrong type, or whose pool is alive makes the
// whole plan fail with one error; nothing is written. Duplicate keys count
// once; the lists keep the order given.
func (r *Reaper) PlanRequeue(ctx context.Context, listKeys []string, deadAfter time.Duration) (RequeuePlan, error) {
	keys := r.keys
	plan := RequeuePlan{Namespace: strings.TrimSuffix(keys.Prefix(), ":"), DeadAfter: deadAfter}
	if len(listKeys) == 0 {
		return plan, errors.New("requeue: no in-progress list given")
	}
	seen := map[string]bool{}
	var uniq []string
	for _, k := range listKeys {
		if _, _, ok := keys.ParseInProgress(k); !ok {
			return plan, fmt.Errorf("requeue %q: %w %q (want %sjobs:<job>:<pool>:inprogress)", k, ErrNotInProgressKey, plan.Namespace, keys.Prefix())
		}
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, k)
		}
	}
	c, err := r.conn(ctx, "requeue")
	if err != nil {
		return plan, err
	}
	defer c.Close()
	now, err := redisq.Time(ctx, c)
	if err != nil {
		return plan, fmt.Errorf("requeue: %w", err)
	}
	plan.RedisTime = now
	members, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", keys.WorkerPools()))
	if err != nil {
		return plan, fmt.Errorf("requeue: read %s: %w", keys.WorkerPools(), err)
	}
	inSet := map[string]bool{}
	for _, m := range members {
		inSet[m] = true
	}
	lockNow := map[string]int64{} // job name -> lock after the lists planned so far
	for _, k := range uniq {
		job, pool, _ := keys.ParseInProgress(k)
		lp := ListPlan{Key: k, JobName: job, PoolID: pool, QueueKey: keys.Queue(job), PoolInSet: inSet[pool]}
		if err := expectType(ctx, c, k, "list"); err != nil {
			if errors.Is(err, errNoKey) {
				if len(uniq) > 1 {
					// Emptied by an earlier, interrupted run of the same
					// requeue: nothing left to do for it, the others go on.
					plan.Missing = append(plan.Missing, k)
					continue
				}
				return plan, fmt.Errorf("requeue %s: %w (nothing to move)", k, ErrNoSuchList)
			}
			return plan, fmt.Errorf("requeue %s: %w", k, err)
		}
		for key, typ := range map[string]string{lp.QueueKey: "list", keys.Lock(job): "string", keys.LockInfo(job): "hash", keys.Heartbeat(pool): "hash"} {
			if err := expectType(ctx, c, key, typ); err != nil && !errors.Is(err, errNoKey) {
				return plan, fmt.Errorf("requeue %s: %w", k, err)
			}
		}
		if lp.Jobs, err = redis.Int64(redis.DoContext(c, ctx, "LLEN", k)); err != nil {
			return plan, fmt.Errorf("requeue %s: llen: %w", k, err)
		}
		hb, err := redis.String(redis.DoContext(c, ctx, "HGET", keys.Heartbeat(pool), "heartbeat_at"))
		switch {
		case errors.Is(err, redis.ErrNil):
			lp.HeartbeatMissing = true
		case err != nil:
			return plan, fmt.Errorf("requeue %s: read heartbeat: %w", k, err)
		default:
			at, perr := strconv.ParseInt(hb, 10, 64)
			if perr != nil {
				return plan, fmt.Errorf("requeue %s: pool %s: %w (its heartbeat_at %q is not a number, so it is never taken for dead)", k, pool, ErrPoolAlive, hb)
			}
			lp.HeartbeatAt = at
		}
		var hbp *model.Heartbeat
		if !lp.HeartbeatMissing {
			hbp = &model.Heartbeat{HeartbeatAt: lp.HeartbeatAt}
		}
		lp.PoolStatus = model.Classify(hbp, now, deadAfter)
		if lp.PoolStatus != model.StatusDead {
			age := model.FormatAge(model.HeartbeatAge(hbp, now))
			return plan, fmt.Errorf("requeue %s: pool %s: %w (last heartbeat %s ago, cut-off %s)", k, pool, ErrPoolAlive, age, model.FormatAge(deadAfter))
		}
		lock, present, err := getInt(ctx, c, "GET", keys.Lock(job))
		if err != nil {
			return plan, fmt.Errorf("requeue %s: %w", k, err)
		}
		if l, ok := lockNow[job]; ok {
			lock = l
		}
		lp.LockPresent, lp.LockBefore = present, lock
		info, infoPresent, err := getInt(ctx, c, "HGET", keys.LockInfo(job), pool)
		if err != nil {
			return plan, fmt.Errorf("requeue %s: %w", k, err)
		}
		lp.LockInfoPresent, lp.LockInfoBefore = infoPresent, info
		release := min(lp.Jobs, max(info, 0))
		lp.LockInfoAfter = info - release
		lp.LockAfter = lock
		if present {
			lp.LockAfter = max(lock-release, 0)
		}
		lockNow[job] = lp.LockAfter
		paused, err := redis.Int(redis.DoContext(c, ctx, "EXISTS", keys.Paused(job)))
		if err != nil {
			return plan, fmt.Errorf("requeue %s: read %s: %w", k, keys.Paused(job), err)
		}
		lp.Paused = paused == 1
		plan.Lists = append(plan.Lists, lp)
	}
	if len(plan.Lists) == 0 {
		return plan, fmt.Errorf("requeue %s: %w (nothing to move)", strings.Join(uniq, ", "), ErrNoSuchList)
	}
	return plan, nil
}

// Requeue carries out a requeue plan, r.Batch() jobs per script call (each
// call atomic), on one connection. The script re-checks the pool's heartbeat on every call; a pool
// alive again has its list skipped, the others go on. progress, when not
// nil, is called after each call with the jobs moved so far and the planned
// total. A cancelled ctx stops between calls: what was moved stays moved,
// with its locks released, and a new plan picks up the rest.
func (r *Reaper) Requeue(ctx context.Context, plan RequeuePlan, progress Progress) (RequeueResult, error) {
	c, err := r.conn(ctx, "requeue")
	if err != nil {
		return RequeueResult{}, err
	}
	defer c.Close()
	var res RequeueResult
	total := plan.TotalJobs()
	var moved int64
	deadMs := plan.DeadAfter.Milliseconds()
	for _, lp := range plan.Lists {
		lr := ListResult{Key: lp.Key, PoolID: lp.PoolID, Remaining: lp.Jobs, LockAfter: lp.LockBefore, LockInfoAfter: lp.LockInfoBefore, LockInfoPresent: lp.LockInfoPresent}
		for {
			if err := ctx.Err(); err != nil {
				lr.Err = fmt.Errorf("requeue %s: stopped after %d jobs: %w", lp.Key, lr.Moved, err)
				res.Lists = append(res.Lists, lr)
				return res, res.Err()
			}
			b, err := r.requeueBatch(ctx, c, lp, deadMs)
			if err != nil {
				lr.Err = fmt.Errorf("requeue %s: %w", lp.Key, err)
				break
			}
			if b.status == "alive" {
				lr.Skipped = fmt.Sprintf("pool %s is alive again, %s not requeued", lp.PoolID, lp.Key)
				lr.Remaining = b.remaining
				break
			}
			lr.Moved += b.moved
			moved += b.moved
			lr.Remaining, lr.LockAfter, lr.LockInfoAfter = b.remaining, b.lock, b.info
			if progress != nil {
				progress(moved, total)
			}
			if b.moved == 0 || b.remaining == 0 {
				break
			}
		}
		res.Lists = append(res.Lists, lr)
	}
	return res, res.Err()
}

// batchReply is the reply of the requeue script (lua/requeue.lua).
type batchReply struct {
	status                       string
	moved, remaining, lock, info int64
}

// requeueBatch is one call of the requeue script.
func (r *Reaper) requeueBatch(ctx context.Context, c redis.Conn, lp ListPlan, deadMs int64) (batchReply, error) {
	var b batchReply
	keys := r.keys
	v, err := redis.Values(r.scripts.requeue.DoContext(ctx, c,
		lp.Key, keys.Queue(lp.JobName), keys.Lock(lp.JobName), keys.LockInfo(lp.JobName), keys.Heartbeat(lp.PoolID),
		lp.PoolID, r.batch, deadMs))
	if err != nil {
		return b, err
	}
	if _, err := redis.Scan(v, &b.status, &b.moved, &b.remaining, &b.lock, &b.info); err != nil {
		return b, fmt.Errorf("unexpected script reply: %w", err)
	}
	switch {
	case b.status == "ok", b.status == "alive":
		return b, nil
	case strings.HasPrefix(b.status, "wrongtype:"):
		return b, fmt.Errorf("%s: %w", strings.TrimPrefix(b.status, "wrongtype:"), ErrWrongType)
	case strings.HasPrefix(b.status, "badvalue:"):
		return b, fmt.Errorf("%s: %w", strings.TrimPrefix(b.status, "badvalue:"), ErrBadValue)
	}
	return b, fmt.Errorf("unexpected script status %q", b.status)
}
