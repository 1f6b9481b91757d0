// Executing a reap plan: the batches that move a dead pool's jobs back and
// the final step that removes the pool, each an atomic script that
// re-checks the pool first.

package reaper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/redisq"
)

// Reap carries out a reap plan, pool after pool, in batches of at most
// r.Batch() jobs per script call. Every call re-checks, inside the script,
// that the pool is still in the set and still dead; a pool that beat again
// is left alone and reported in PoolResult.Skipped. Errors of one pool do not
// stop the others (except a cancelled context); all are returned, joined.
// An interrupted reap leaves a consistent state: running the same plan (or
// a new one) again finishes it.
func (r *Reaper) Reap(ctx context.Context, plan Plan, progress Progress) (Result, error) {
	var res Result
	if plan.Namespace != "" && redisq.NewKeys(plan.Namespace).Prefix() != r.keys.Prefix() {
		return res, fmt.Errorf("reap: plan is for namespace %q, reaper for %q", plan.Namespace, r.keys.Prefix())
	}
	deadAfter := plan.DeadAfter
	if deadAfter <= 0 {
		return res, fmt.Errorf("reap: plan has no dead cut-off")
	}
	extra, err := r.scanInProgress(ctx, plan)
	if err != nil {
		return res, fmt.Errorf("reap: %w", err)
	}
	total := plan.TotalJobs()
	var moved int64
	report := func(n int64) {
		moved += n
		if progress != nil {
			if moved > total {
				total = moved
			}
			progress(moved, total)
		}
	}

	var errs []error
	for _, pp := range plan.Pools {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("reap interrupted before pool %s: %w", pp.PoolID, err))
			break
		}
		jobs := append([]string(nil), pp.JobNames...)
		for _, j := range pp.Jobs {
			if !slices.Contains(jobs, j.JobName) {
				jobs = append(jobs, j.JobName)
			}
		}
		for _, j := range extra[pp.PoolID] {
			if !slices.Contains(jobs, j) {
				jobs = append(jobs, j)
			}
		}
		if !plan.LeakAware {
			if pr, stop := r.unlistedLeaks(ctx, pp, jobs); stop {
				errs = append(errs, pr.Err)
				res.Pools = append(res.Pools, pr)
				continue
			}
		}
		pr := r.reapPool(ctx, pp, jobs, deadAfter, report)
		if pr.Err != nil {
			errs = append(errs, pr.Err)
		}
		res.Pools = append(res.Pools, pr)
	}
	return res, errors.Join(errs...)
}

// scanInProgress finds the in-progress lists of the plan's pools by SCAN, so
// that job types nobody registered are reaped too. It returns the job names
// per pool, sorted.
func (r *Reaper) scanInProgress(ctx context.Context, plan Plan) (map[string][]string, error) {
	want := map[string]bool{}
	for _, pp := range plan.Pools {
		want[pp.PoolID] = true
	}
	out := map[string][]string{}
	if len(want) == 0 {
		return out, nil
	}
	conn, err := r.conns.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	cursor := "0"
	for {
		v, err := redis.Values(redis.DoContext(conn, ctx, "SCAN", cursor, "MATCH", r.keys.InProgressPattern(), "COUNT", 1000))
		if err != nil {
			return nil, fmt.Errorf("scan in-progress lists: %w", err)
		}
		if len(v) != 2 {
			return nil, fmt.Errorf("scan in-progress lists: unexpected reply")
		}
		cursor, err = redis.String(v[0], nil)
		if err != nil {
			return nil, fmt.Errorf("scan in-progress lists: %w", err)
		}
		keys, err := redis.Strings(v[1], nil)
		if err != nil {
			return nil, fmt.Errorf("scan in-progress lists: %w", err)
		}
		for _, k := range keys {
			job, pool, ok := r.keys.ParseInProgress(k)
			if ok && want[pool] && !slices.Contains(out[pool], job) {
				out[pool] = append(out[pool], job)
			}
		}
		if cursor == "0" {
			break
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out, nil
}

func (r *Reaper) reapPool(ctx context.Context, pp PoolPlan, jobs []string, deadAfter time.Duration, report func(int64)) PoolResult {
	pr := PoolResult{PoolID: pp.PoolID, Moved: map[string]int64{}, LocksReleased: map[string]int64{}, LockAfter: map[string]int64{}, LeakedRemoved: map[string]int64{}}
	conn, err := r.conns.GetContext(ctx)
	if err != nil {
		pr.Err = fmt.Errorf("reap pool %s: %w", pp.PoolID, err)
		return pr
	}
	defer conn.Close()

	expected := ""
	if !pp.HeartbeatMissing {
		expected = strconv.FormatInt(pp.HeartbeatAt, 10)
	}
	head := []interface{}{r.keys.WorkerPools(), r.keys.Heartbeat(pp.PoolID)}
	argv := []interface{}{pp.PoolID, expected, deadAfter.Milliseconds()}

	batchArgs := []interface{}{2 + 4*len(jobs)}
	batchArgs = append(batchArgs, head...)
	for _, j := range jobs {
		batchArgs = append(batchArgs, r.keys.InProgress(j, pp.PoolID), r.keys.Queue(j), r.keys.Lock(j), r.keys.LockInfo(j))
	}
	batchArgs = append(batchArgs, argv...)
	batchArgs = append(batchArgs, r.batch)

	finalArgs := []interface{}{2 + 3*len(jobs)}
	finalArgs = append(finalArgs, head...)
	for _, j := range jobs {
		finalArgs = append(finalArgs, r.keys.InProgress(j, pp.PoolID), r.keys.Lock(j), r.keys.LockInfo(j))
	}
	finalArgs = append(finalArgs, argv...)

	fail := func(err error) PoolResult {
		pr.Err = fmt.Errorf("reap pool %s: %w", pp.PoolID, err)
		return pr
	}
	if len(pp.Leaked) > 0 {
		done, err := r.removeLeaked(ctx, conn, pp, head, argv, &pr)
		if err != nil {
			return fail(err)
		}
		if done {
			return pr
		}
	}
	// A dead pool gets no new jobs, so the lists only shrink; a final step
	// that still finds jobs (a list the batches did not know of cannot be:
	// both scripts take the same keys) is retried a few times, then reported.
	for round := 0; round < 3; round++ {
		for {
			if err := ctx.Err(); err != nil {
				return fail(fmt.Errorf("interrupted after moving %d jobs (run the reap again to finish): %w", sumValues(pr.Moved), err))
			}
			v, err := r.eval(ctx, conn, r.scripts.reapBatch, batchArgs)
			if err != nil {
				return fail(fmt.Errorf("move jobs: %w", err))
			}
			state, remaining, err := scriptHead(v)
			if err != nil {
				return fail(fmt.Errorf("move jobs: %w", err))
			}
			if r.notDeadAnymore(&pr, state) {
				if n, _ := redis.Int64(remaining, nil); pr.Gone && n > 0 {
					pr.Left = n
					pr.Skipped += fmt.Sprintf("; %d jobs left in its in-progress lists", n)
				}
				return pr
			}
			switch state {
			case "dead":
			case "error":
				why, _ := redis.String(remaining, nil)
				return fail(scriptDataError(why))
			default:
				return fail(fmt.Errorf("move jobs: unexpected state %q", state))
			}
			left, err := redis.Int64(remaining, nil)
			if err != nil {
				return fail(fmt.Errorf("move jobs: %w", err))
			}
			if len(v) != 2+2*len(jobs) {
				return fail(fmt.Errorf("move jobs: reply has %d elements, want %d", len(v), 2+2*len(jobs)))
			}
			var n int64
			for i, j := range jobs {
				m, err1 := redis.Int64(v[2+2*i], nil)
				rel, err2 := redis.Int64(v[3+2*i], nil)
				if err := errors.Join(err1, err2); err != nil {
					return fail(fmt.Errorf("move jobs: %w", err))
				}
				if m > 0 {
					pr.Moved[j] += m
				}
				if rel > 0 {
					pr.LocksReleased[j] += rel
				}
				n += m
			}
			report(n)
			if left == 0 {
				break
			}
			if n == 0 {
				return fail(fmt.Errorf("move jobs: %d jobs left but none moved", left))
			}
		}

		v, err := r.eval(ctx, conn, r.scripts.reapFinal, finalArgs)
		if err != nil {
			return fail(fmt.Errorf("remove pool: %w", err))
		}
		state, detail, err := scriptHead(v)
		if err != nil {
			return fail(fmt.Errorf("remove pool: %w", err))
		}
		if r.notDeadAnymore(&pr, state) {
			return pr
		}
		switch state {
		case "dead":
		case "notempty":
			continue
		case "error":
			why, _ := redis.String(detail, nil)
			return fail(scriptDataError(why))
		default:
			return fail(fmt.Errorf("remove pool: unexpected state %q", state))
		}
		if len(v) != 1+3*len(jobs) {
			return fail(fmt.Errorf("remove pool: reply has %d elements, want %d", len(v), 1+3*len(jobs)))
		}
		for i, j := range jobs {
			before, _ := redis.String(v[1+3*i], nil)
			after, _ := redis.String(v[2+3*i], nil)
			held, _ := redis.String(v[3+3*i], nil)
			if held == "" {
				continue // the final step did not touch this lock
			}
			a, _ := strconv.ParseInt(after, 10, 64)
			b, _ := strconv.ParseInt(before, 10, 64) // "" (no lock key) reads as 0
			pr.LockAfter[j] = a
			if b != a {
				pr.LocksReleased[j] += b - a
			}
		}
		pr.Reaped = true
		return pr
	}
	return fail(fmt.Errorf("in-progress lists still not empty after %d rounds", 3))
}

func (r *Reaper) eval(ctx context.Context, conn redis.Conn, s *redis.Script, args []interface{}) ([]interface{}, error) {
	start := time.Now()
	v, err := redis.Values(s.DoContext(ctx, conn, args...))
	if r.Observe != nil {
		r.Observe(time.Since(start))
	}
	return v, err
}

func scriptHead(v []interface{}) (string, interface{}, error) {
	if len(v) == 0 {
		return "", nil, fmt.Errorf("empty reply")
	}
	state, err := redis.String(v[0], nil)
	if err != nil {
		return "", nil, fmt.Errorf("reply state: %w", err)
	}
	var second interface{}
	if len(v) > 1 {
		second = v[1]
	}
	return state, second, nil
}

func sumValues(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// notDeadAnymore records a script's answer that the pool is no longer one to
// reap: it beat again ("alive"), or it left the set ("gone": reaped or
// stopped by another process). It reports whether the reap of this pool
// ends here.
func (r *Reaper) notDeadAnymore(pr *PoolResult, state string) bool {
	switch state {
	case "alive":
		pr.Skipped = fmt.Sprintf("pool %s is alive again, not reaped", pr.PoolID)
		return true
	case "gone":
		pr.Gone = true
		pr.Skipped = fmt.Sprintf("pool %s is no longer in %s (reaped or stopped by another process)", pr.PoolID, r.keys.WorkerPools())
		return true
	}
	return false
}
