// The orphan scan: in-progress lists whose pool is not in worker_pools,
// found with bounded SCAN steps.

package redisq

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// DefaultScanCount is the COUNT hint of each SCAN call of the orphan scan: big
// enough that a namespace of a million keys takes about a thousand calls,
// small enough that one call never holds Redis for long.
const DefaultScanCount = 1000

// OrphanScan finds the in-progress lists of pools that are not in
// `<ns>:worker_pools` (upstream issue #146). It walks the keyspace with SCAN
// MATCH <ns>:jobs:*:inprogress COUNT n, never KEYS, one SCAN call per Step, so
// that a caller can show progress between calls and run it on a connection of
// its own without delaying anything else. When Step reports done, Finish
// reads the set and the lengths and returns the orphans.
//
// An OrphanScan is used by one goroutine at a time.
type OrphanScan struct {
	keys   Keys
	count  int
	cursor string
	done   bool
	calls  int
	seen   map[string]struct{}
}

// OrphanResult is the outcome of a finished scan.
type OrphanResult struct {
	// Orphans are sorted by key.
	Orphans []model.InProgressList
	// Candidates is how many in-progress keys the scan saw in all.
	Candidates int
	// Calls is the number of SCAN calls the scan made.
	Calls int
	// Warnings describe keys that matched the pattern but could not be read
	// as an in-progress list (a key of another type, say).
	Warnings []string
}

// ErrScanNotDone is returned by Finish before Step has reported done.
var ErrScanNotDone = errors.New("orphan scan not finished")

// NewOrphanScan starts a scan of a namespace; count is the COUNT hint of each
// SCAN call (DefaultScanCount when not positive).
func NewOrphanScan(keys Keys, count int) *OrphanScan {
	if count <= 0 {
		count = DefaultScanCount
	}
	return &OrphanScan{keys: keys, count: count, cursor: "0", seen: map[string]struct{}{}}
}

// Progress is how far the scan has got.
func (s *OrphanScan) Progress() model.ScanProgress {
	return model.ScanProgress{Calls: s.calls, Candidates: len(s.seen), Done: s.done}
}

// Done reports whether the keyspace walk is over.
func (s *OrphanScan) Done() bool { return s.done }

// Step makes one SCAN call and reports whether the walk is over. A key SCAN
// returns twice (it may, while the keyspace is rehashed) is counted once.
func (s *OrphanScan) Step(ctx context.Context, c redis.Conn) (done bool, err error) {
	if s.done {
		return true, nil
	}
	reply, err := redis.Values(redis.DoContext(c, ctx, "SCAN", s.cursor, "MATCH", s.keys.InProgressPattern(), "COUNT", s.count))
	if err != nil {
		return false, fmt.Errorf("scan for in-progress lists: %w", err)
	}
	var next string
	var found []string
	if _, err := redis.Scan(reply, &next, &found); err != nil {
		return false, fmt.Errorf("scan for in-progress lists: unexpected reply: %w", err)
	}
	s.calls++
	for _, k := range found {
		if _, _, ok := s.keys.ParseInProgress(k); ok {
			s.seen[k] = struct{}{}
		}
	}
	s.cursor = next
	if next == "0" {
		s.done = true
	}
	return s.done, nil
}

// Finish reads `<ns>:worker_pools` and `<ns>:known_jobs` once, keeps the keys
// whose pool is not in the set, and reads their lengths in one pipeline. The
// set is read after the walk, so a pool that registered during the scan is
// not reported. A key that is the queue of a known job whose name ends in
// ":<x>:inprogress" is not an in-progress list and is left out. A list that
// emptied since the walk is left out too.
func (s *OrphanScan) Finish(ctx context.Context, c redis.Conn) (OrphanResult, error) {
	res := OrphanResult{Candidates: len(s.seen), Calls: s.calls}
	if !s.done {
		return res, ErrScanNotDone
	}
	if len(s.seen) == 0 {
		return res, nil
	}
	pools, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", s.keys.WorkerPools()))
	if err != nil {
		return res, fmt.Errorf("read %s: %w", s.keys.WorkerPools(), err)
	}
	known, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", s.keys.KnownJobs()))
	if err != nil && !isWrongType(err) {
		return res, fmt.Errorf("read %s: %w", s.keys.KnownJobs(), err)
	}
	inSet := make(map[string]bool, len(pools))
	for _, p := range pools {
		inSet[p] = true
	}
	queues := make(map[string]bool, len(known))
	for _, j := range known {
		queues[s.keys.Queue(j)] = true
	}
	var cand []model.InProgressList
	for k := range s.seen {
		job, pool, _ := s.keys.ParseInProgress(k)
		if inSet[pool] || queues[k] {
			continue
		}
		cand = append(cand, model.InProgressList{Key: k, JobName: job, PoolID: pool})
	}
	sort.Slice(cand, func(i, j int) bool { return cand[i].Key < cand[j].Key })
	if len(cand) == 0 {
		return res, nil
	}
	lens, errs, err := pipelinedLLen(ctx, c, cand)
	if err != nil {
		return res, err
	}
	for i, o := range cand {
		if errs[i] != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s matches the in-progress pattern but is not a list (%v)", o.Key, errs[i]))
			continue
		}
		if lens[i] == 0 {
			continue
		}
		o.Length = lens[i]
		res.Orphans = append(res.Orphans, o)
	}
	return res, nil
}

// pipelinedLLen reads every list's length in one round trip (the
// snapshot's pipeline). errs[i] holds a per-key error reply (WRONGTYPE); err
// a connection error.
func pipelinedLLen(ctx context.Context, c redis.Conn, lists []model.InProgressList) ([]int64, []error, error) {
	cmds := make([]cmd, len(lists))
	for i, o := range lists {
		cmds[i] = cmd{name: "LLEN", args: []any{o.Key}}
	}
	replies, err := pipeline(ctx, c, cmds)
	if err != nil {
		return nil, nil, fmt.Errorf("llen in-progress lists: %w", err)
	}
	lens := make([]int64, len(lists))
	errs := make([]error, len(lists))
	for i, r := range replies {
		if r.err != nil {
			errs[i] = r.err
			continue
		}
		n, err := redis.Int64(r.v, nil)
		if err != nil {
			errs[i] = err
		}
		lens[i] = n
	}
	return lens, errs, nil
}

// ScanOrphans runs a whole scan: Step until done, then Finish. progress, when
// not nil, is called after every SCAN call. It stops at the first error or
// when ctx is done.
func ScanOrphans(ctx context.Context, c redis.Conn, keys Keys, count int, progress func(model.ScanProgress)) (OrphanResult, error) {
	s := NewOrphanScan(keys, count)
	for {
		if err := ctx.Err(); err != nil {
			return OrphanResult{Candidates: len(s.seen), Calls: s.calls}, fmt.Errorf("scan for in-progress lists: %w", err)
		}
		done, err := s.Step(ctx, c)
		if err != nil {
			return OrphanResult{Candidates: len(s.seen), Calls: s.calls}, err
		}
		if progress != nil {
			progress(s.Progress())
		}
		if done {
			return s.Finish(ctx, c)
		}
	}
}
