package reaper

// This file owns what repair-locks does with leaked in-progress entries
// (model.LeakedEntry): they are not counted. A stand-in that gocraft/work
// master left behind holds no slot; counting it would raise lock over a
// job that no longer runs, and at max_concurrency 1 stop the type for good.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// excludeLeaked finds the leaked entries of jp's lists and takes them out
// of the counts the repair will write.
func excludeLeaked(ctx context.Context, c redis.Conn, keys redisq.Keys, jp *JobLockPlan) error {
	var cands []redisq.LeakCandidate
	for _, p := range jp.Pools {
		n := jp.InProgress[p]
		counted, _ := strconv.ParseInt(jp.LockInfoBefore[p], 10, 64)
		if n <= max(counted, 0) {
			continue
		}
		ids, err := redis.String(redis.DoContext(c, ctx, "HGET", keys.Heartbeat(p), "worker_ids"))
		var re redis.Error
		if err != nil && !errors.Is(err, redis.ErrNil) && !errors.As(err, &re) {
			return fmt.Errorf("read %s: %w", keys.Heartbeat(p), err)
		}
		cand := redisq.LeakCandidate{PoolID: p, JobName: jp.JobName, Counted: counted}
		if ids != "" {
			cand.WorkerIDs = strings.Split(ids, ",")
		}
		cands = append(cands, cand)
	}
	if len(cands) == 0 {
		return nil
	}
	leaked, err := redisq.ReadLeaked(ctx, c, keys, cands)
	if err != nil {
		return err
	}
	jp.Leaked = leaked
	for _, l := range leaked {
		jp.LockAfter--
		jp.LockInfoAfter[l.PoolID]--
		if jp.LockInfoAfter[l.PoolID] <= 0 {
			delete(jp.LockInfoAfter, l.PoolID)
		}
	}
	return nil
}

// leakedArgs are the script's arguments after the pool IDs: per leaked
// entry, the index (1-based) of its pool among the plan's pools and its
// exact bytes.
func leakedArgs(jp JobLockPlan) []interface{} {
	var out []interface{}
	for _, l := range jp.Leaked {
		for i, p := range jp.Pools {
			if p == l.PoolID {
				out = append(out, i+1, l.Raw)
				break
			}
		}
	}
	return out
}

// writeLeakedNote says which in-progress entries the repair does not
// count, and why.
func writeLeakedNote(b *strings.Builder, j JobLockPlan) {
	if len(j.Leaked) == 0 {
		return
	}
	fmt.Fprintf(b, "  not counted: %s left in in-progress lists by jobs that already ran (gocraft/work master's EnqueueUniqueByKey): they hold no slot, and counting them would raise the lock over jobs that no longer run\n", model.Plural(len(j.Leaked), "entry", "entries"))
	for _, l := range j.Leaked {
		fmt.Fprintf(b, "    %s in %s\n", textsafe.Clean(l.ID), textsafe.Clean(l.Key))
	}
	fmt.Fprintf(b, "  the remove-leaked command removes them\n")
}

// unlistedLockLeaks looks, for a plan made without looking for leaked
// entries (the screen's poll), for leaked entries in jp's lists that the
// plan does not list. Counted, they would raise lock over jobs that no
// longer run, and leaving them out would write other values than the plan
// showed: a type that holds any is left alone (ErrUnlistedLeaks), and a
// plan from a full read lists them.
func unlistedLockLeaks(ctx context.Context, c redis.Conn, keys redisq.Keys, jp JobLockPlan) error {
	now := JobLockPlan{JobName: jp.JobName, Pools: jp.Pools, InProgress: map[string]int64{}, LockInfoBefore: map[string]string{}, LockInfoAfter: map[string]int64{}}
	for _, p := range jp.Pools {
		n, err := redis.Int64(redis.DoContext(c, ctx, "LLEN", keys.InProgress(jp.JobName, p)))
		if err != nil {
			continue // a key of the wrong type: the script says so
		}
		now.InProgress[p] = n
		now.LockInfoAfter[p] = n
		held, err := redis.String(redis.DoContext(c, ctx, "HGET", keys.LockInfo(jp.JobName), p))
		if err == nil {
			now.LockInfoBefore[p] = held
		}
	}
	if err := excludeLeaked(ctx, c, keys, &now); err != nil {
		return fmt.Errorf("repair-locks %s: %w", jp.JobName, err)
	}
	listed := map[string]int{}
	for _, l := range jp.Leaked {
		listed[l.Key+"\x00"+string(l.Raw)]++
	}
	unlisted := 0
	for _, l := range now.Leaked {
		k := l.Key + "\x00" + string(l.Raw)
		if listed[k] > 0 {
			listed[k]--
			continue
		}
		unlisted++
	}
	if unlisted == 0 {
		return nil
	}
	return fmt.Errorf("repair-locks %s: %w: %s (their jobs already ran: counted, they would raise the lock over jobs that no longer run); not repaired: plan again from a full read (the repair-locks command leaves them out)",
		jp.JobName, ErrUnlistedLeaks, model.Plural(unlisted, "leaked in-progress entry", "leaked in-progress entries"))
}
