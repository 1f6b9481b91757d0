package reaper

// This file owns the first step of a reap of a pool that holds leaked
// in-progress entries (model.LeakedEntry): they are removed, not requeued.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// removeLeaked runs lua/reap_leaked.lua for the pool's leaked entries. It
// reports whether the reap of the pool ends here (alive again, or gone:
// recorded in pr as the batches would).
func (r *Reaper) removeLeaked(ctx context.Context, conn redis.Conn, pp PoolPlan, head, argv []interface{}, pr *PoolResult) (bool, error) {
	args := []interface{}{len(head) + 2*len(pp.Leaked)}
	args = append(args, head...)
	for _, l := range pp.Leaked {
		args = append(args, l.Key, r.keys.LockInfo(l.JobName))
	}
	args = append(args, argv...)
	for _, l := range pp.Leaked {
		args = append(args, l.Raw)
	}
	v, err := r.eval(ctx, conn, r.scripts.reapLeaked, args)
	if err != nil {
		return false, fmt.Errorf("remove leaked entries: %w", err)
	}
	state, detail, err := scriptHead(v)
	if err != nil {
		return false, fmt.Errorf("remove leaked entries: %w", err)
	}
	if r.notDeadAnymore(pr, state) {
		return true, nil
	}
	switch state {
	case "dead":
	case "error":
		why, _ := redis.String(detail, nil)
		return false, scriptDataError(why)
	default:
		return false, fmt.Errorf("remove leaked entries: unexpected state %q", state)
	}
	if len(v) != 1+len(pp.Leaked) {
		return false, fmt.Errorf("remove leaked entries: reply has %d elements, want %d", len(v), 1+len(pp.Leaked))
	}
	for i, l := range pp.Leaked {
		if n, _ := redis.Int64(v[1+i], nil); n > 0 {
			pr.LeakedRemoved[l.JobName] += n
		}
	}
	return false, nil
}

// writeLeakedReap lists a pool's leaked entries apart in its reap plan,
// and says why they are not requeued.
func writeLeakedReap(b *strings.Builder, pp PoolPlan) {
	if len(pp.Leaked) == 0 {
		return
	}
	fmt.Fprintf(b, "  first remove %s, not requeued:\n", model.Plural(len(pp.Leaked), "leaked entry", "leaked entries"))
	for _, l := range pp.Leaked {
		fmt.Fprintf(b, "    %s of %s: %s\n", textsafe.Clean(l.ID), textsafe.Clean(l.JobName), leakedReason(l))
	}
	b.WriteString("  their jobs already ran (gocraft/work master's EnqueueUniqueByKey left them): requeued, each would run again with its older arguments; --requeue-leaked requeues them anyway\n")
}

// leakedReason is the evidence, in a few words.
func leakedReason(l model.LeakedEntry) string {
	s := "no worker runs it and lock_info does not count it"
	switch {
	case l.Holder == "":
		s += "; its unique key is gone (the job read from it ran)"
	case l.Holder != l.ID:
		s += "; its unique key holds job " + textsafe.Clean(l.Holder) + ", which will run"
	}
	return s
}

// writeLeakedRemoved says how many leaked entries a reap removed.
func writeLeakedRemoved(b *strings.Builder, pr PoolResult) {
	for _, j := range slices.Sorted(maps.Keys(pr.LeakedRemoved)) {
		fmt.Fprintf(b, "  %s: %s removed, not requeued\n", textsafe.Clean(j), model.Plural(pr.LeakedRemoved[j], "leaked entry", "leaked entries"))
	}
}

// unlistedLeaks looks, for a plan made without looking for leaked entries
// (the screen's poll), for leaked entries in the pool's lists. A pool that
// holds any is left alone: requeued, their jobs would run again, and
// removing them was not in the plan shown. It reports whether the reap of
// the pool stops here, with the result to report.
func (r *Reaper) unlistedLeaks(ctx context.Context, pp PoolPlan, jobs []string) (PoolResult, bool) {
	pr := PoolResult{PoolID: pp.PoolID}
	conn, err := r.conns.GetContext(ctx)
	if err != nil {
		pr.Err = fmt.Errorf("reap pool %s: %w", pp.PoolID, err)
		return pr, true
	}
	defer conn.Close()
	var cands []redisq.LeakCandidate
	for _, job := range jobs {
		n, err1 := redis.Int64(redis.DoContext(conn, ctx, "LLEN", r.keys.InProgress(job, pp.PoolID)))
		held, err2 := redis.Int64(redis.DoContext(conn, ctx, "HGET", r.keys.LockInfo(job), pp.PoolID))
		if err1 != nil || errors.Is(err2, redis.ErrNil) {
			err2 = nil
		}
		if err1 != nil || err2 != nil || n <= max(held, 0) {
			continue // a key of the wrong type: the reap's scripts say so
		}
		cands = append(cands, redisq.LeakCandidate{PoolID: pp.PoolID, JobName: job, Counted: held})
	}
	if len(cands) == 0 {
		return pr, false
	}
	ids, err := redis.String(redis.DoContext(conn, ctx, "HGET", r.keys.Heartbeat(pp.PoolID), "worker_ids"))
	if err == nil && ids != "" {
		for i := range cands {
			cands[i].WorkerIDs = strings.Split(ids, ",")
		}
	}
	leaked, err := redisq.ReadLeaked(ctx, conn, r.keys, cands)
	if err != nil {
		pr.Err = fmt.Errorf("reap pool %s: %w", pp.PoolID, err)
		return pr, true
	}
	if len(leaked) == 0 {
		return pr, false
	}
	pr.Skipped = fmt.Sprintf("pool %s holds %s that the plan did not list (their jobs already ran: requeued, they would run again); not reaped: plan again from a full read (the reap command lists them apart)", pp.PoolID, model.Plural(len(leaked), "leaked in-progress entry", "leaked in-progress entries"))
	return pr, true
}
