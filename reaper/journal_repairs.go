package reaper

// This file owns the journal of reaps, orphan requeues and lock repairs:
// they are never undone (they repair broken state), but what they were
// about to change is on record: before the action's first script call, the
// lock and lock_info of each job type it touches and the length of each
// list it moves from (the plans read the jobs themselves; the lists are
// moved whole, each to the queue the plan names).

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/redisq"
)

// RepairScope is what a reap, orphan requeue or lock repair touches.
type RepairScope struct {
	// JobNames are the job types whose lock and lock_info change.
	JobNames []string
	// Lists are the in-progress lists moved from, each to its queue.
	Lists map[string]string
	// Keys are other keys it deletes or changes (heartbeats).
	Keys []string
	// Removed are entries it removes from a list without moving them (a
	// reap's leaked entries): Queue the list, Old the exact bytes.
	Removed []journal.Item
}

// ReapScope is what a reap plan touches.
func ReapScope(p Plan, keys redisq.Keys) RepairScope {
	s := RepairScope{Lists: map[string]string{}}
	names := map[string]bool{}
	for _, pp := range p.Pools {
		s.Keys = append(s.Keys, keys.Heartbeat(pp.PoolID))
		for _, n := range pp.JobNames {
			names[n] = true
		}
		for _, j := range pp.Jobs {
			names[j.JobName] = true
			s.Lists[j.InProgressKey] = j.QueueKey
		}
		for _, l := range pp.Leaked {
			s.Removed = append(s.Removed, journal.Item{Queue: l.Key, Old: l.Raw, Count: 1})
		}
	}
	s.JobNames = sortedNames(names)
	return s
}

// RequeueScope is what an orphan requeue plan touches.
func RequeueScope(p RequeuePlan) RepairScope {
	s := RepairScope{Lists: map[string]string{}}
	names := map[string]bool{}
	for _, l := range p.Lists {
		names[l.JobName] = true
		s.Lists[l.Key] = l.QueueKey
	}
	s.JobNames = sortedNames(names)
	return s
}

// LockRepairScope is what a lock repair plan touches.
func LockRepairScope(p LockRepairPlan) RepairScope {
	names := map[string]bool{}
	for _, j := range p.Jobs {
		names[j.JobName] = true
	}
	return RepairScope{JobNames: sortedNames(names)}
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// JournalRepair writes the values before of what s touches to w, as the
// action's one intent, and returns its sequence number: call it before the
// action's first script call, and commit its outcome after the last.
func JournalRepair(ctx context.Context, c redis.Conn, keys redisq.Keys, w JournalWriter, s RepairScope) (int, error) {
	tv, err := redis.Int64s(redis.DoContext(c, ctx, "TIME"))
	if err != nil || len(tv) != 2 {
		return 0, fmt.Errorf("journal: read the time: %w", errOr(err, errors.New("bad reply")))
	}
	in := journal.Intent{RedisMs: tv[0]*1000 + tv[1]/1000}
	for _, n := range s.JobNames {
		k, err := readKey(ctx, c, keys.Lock(n))
		if err != nil {
			return 0, fmt.Errorf("journal: %w", err)
		}
		fields, err := redis.StringMap(redis.DoContext(c, ctx, "HGETALL", keys.LockInfo(n)))
		var re redis.Error
		if err != nil && !errors.As(err, &re) {
			return 0, fmt.Errorf("journal: read %s: %w", keys.LockInfo(n), err)
		}
		in.Items = append(in.Items, journal.Item{Key: k, Fields: fields, Queue: keys.Queue(n)})
	}
	if len(s.Lists) > 0 {
		lists := map[string]int64{}
		for l := range s.Lists {
			n, err := redis.Int64(redis.DoContext(c, ctx, "LLEN", l))
			var re redis.Error
			if err != nil && !errors.As(err, &re) {
				return 0, fmt.Errorf("journal: read %s: %w", l, err)
			}
			lists[l] = n
		}
		in.Items = append(in.Items, journal.Item{Lists: lists})
	}
	for _, key := range s.Keys {
		fields, err := redis.StringMap(redis.DoContext(c, ctx, "HGETALL", key))
		var re redis.Error
		if err != nil && !errors.As(err, &re) {
			return 0, fmt.Errorf("journal: read %s: %w", key, err)
		}
		in.Items = append(in.Items, journal.Item{Key: &journal.Key{Name: key, Exists: len(fields) > 0}, Fields: fields})
	}
	in.Items = append(in.Items, s.Removed...)
	seq, err := w.Intent(in)
	if err != nil {
		return 0, fmt.Errorf("journal: %w", err)
	}
	return seq, nil
}
