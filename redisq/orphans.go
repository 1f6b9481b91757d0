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
// The first Step reads the set along with its SCAN call (one round trip).
// The keys of pools in it, nearly every key of a busy namespace, are then
// held as one bit per pool and job type rather than as strings; the set is
// read again at Finish, which alone decides what is an orphan.
//
// An OrphanScan is used by one goroutine at a time.
type OrphanScan struct {
	keys    Keys
	count   int
	cursor  string
	started bool
	done    bool
	calls   int
	// pool is the index of each member of worker_pools when the walk
	// started, jobs that of each job name seen in one of their keys;
	// seenBits[pool] has bit job set once that key was seen.
	pool     map[string]int
	poolIDs  []string
	jobs     map[string]int
	jobNames []string
	seenBits [][]uint64
	// others are the keys of pools that were not in the set when the walk
	// started.
	others map[string]struct{}
	// seen counts the distinct keys.
	seen int
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
	return &OrphanScan{keys: keys, count: count, cursor: "0", jobs: map[string]int{}, others: map[string]struct{}{}}
}

// Progress is how far the scan has got.
func (s *OrphanScan) Progress() model.ScanProgress {
	return model.ScanProgress{Calls: s.calls, Candidates: s.seen, Done: s.done}
}

// Done reports whether the keyspace walk is over.
func (s *OrphanScan) Done() bool { return s.done }

// Step makes one SCAN call and reports whether the walk is over. A key SCAN
// returns twice (it may, while the keyspace is rehashed) is counted once.
func (s *OrphanScan) Step(ctx context.Context, c redis.Conn) (done bool, err error) {
	if s.done {
		return true, nil
	}
	scan := cmd{name: "SCAN", args: []any{s.cursor, "MATCH", s.keys.InProgressPattern(), "COUNT", s.count}}
	var r any
	if s.started {
		r, err = redis.DoContext(c, ctx, scan.name, scan.args...)
	} else {
		var rs []reply
		rs, err = pipeline(ctx, c, []cmd{{name: "SMEMBERS", args: []any{s.keys.WorkerPools()}}, scan})
		if err == nil {
			s.setPools(rs[0])
			r, err = rs[1].v, rs[1].err
		}
	}
	if err != nil {
		return false, fmt.Errorf("scan for in-progress lists: %w", err)
	}
	next, found, err := scanReply(r)
	if err != nil {
		return false, fmt.Errorf("scan for in-progress lists: unexpected reply: %w", err)
	}
	s.started = true
	s.calls++
	for _, k := range found {
		s.add(k.([]byte)) // scanReply checked the type
	}
	s.cursor = next
	if next == "0" {
		s.done = true
	}
	return s.done, nil
}

// scanReply splits a SCAN reply into the next cursor and the keys, each a
// []byte.
func scanReply(r any) (next string, keys []any, err error) {
	v, err := redis.Values(r, nil)
	if err != nil {
		return "", nil, err
	}
	if len(v) != 2 {
		return "", nil, fmt.Errorf("%d elements, want 2", len(v))
	}
	if next, err = redis.String(v[0], nil); err != nil {
		return "", nil, err
	}
	keys, ok := v[1].([]any)
	if !ok {
		return "", nil, fmt.Errorf("keys of type %T", v[1])
	}
	for _, k := range keys {
		if _, ok := k.([]byte); !ok {
			return "", nil, fmt.Errorf("key of type %T", k)
		}
	}
	return next, keys, nil
}

// setPools takes the set as the walk starts. An error reply (a set of the
// wrong type, say) leaves it empty, and every key is held as a string:
// Finish reads the set again and reports the error.
func (s *OrphanScan) setPools(r reply) {
	ids, err := redis.Strings(r.v, r.err)
	if err != nil {
		return
	}
	s.pool = make(map[string]int, len(ids))
	for _, id := range ids {
		if _, dup := s.pool[id]; !dup {
			s.pool[id] = len(s.poolIDs)
			s.poolIDs = append(s.poolIDs, id)
		}
	}
	s.seenBits = make([][]uint64, len(s.poolIDs))
}

// add records one key the walk returned. The key of a pool in the set
// (nearly every key) is only looked up, never made a string: a string
// each made as much garbage as the replies themselves.
func (s *OrphanScan) add(key []byte) {
	job, poolID, ok := s.keys.parseInProgressBytes(key)
	if !ok {
		return
	}
	p, known := s.pool[string(poolID)]
	if !known {
		if _, dup := s.others[string(key)]; !dup {
			s.others[string(key)] = struct{}{}
			s.seen++
		}
		return
	}
	j, ok := s.jobs[string(job)]
	if !ok {
		name := string(job)
		j = len(s.jobNames)
		s.jobs[name] = j
		s.jobNames = append(s.jobNames, name)
	}
	bits := s.seenBits[p]
	for len(bits) <= j/64 {
		bits = append(bits, 0)
	}
	if bits[j/64]&(1<<(j%64)) == 0 {
		bits[j/64] |= 1 << (j % 64)
		s.seen++
	}
	s.seenBits[p] = bits
}

// Finish reads `<ns>:worker_pools` and `<ns>:known_jobs` once, keeps the keys
// whose pool is not in the set, and reads their lengths in one pipeline. The
// set is read after the walk, so a pool that registered during the scan is
// not reported. A key that is the queue of a known job whose name ends in
// ":<x>:inprogress" is not an in-progress list and is left out. A list that
// emptied since the walk is left out too.
func (s *OrphanScan) Finish(ctx context.Context, c redis.Conn) (OrphanResult, error) {
	res := OrphanResult{Candidates: s.seen, Calls: s.calls}
	if !s.done {
		return res, ErrScanNotDone
	}
	if s.seen == 0 {
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
	keep := func(k, job, pool string) {
		if !inSet[pool] && !queues[k] {
			cand = append(cand, model.InProgressList{Key: k, JobName: job, PoolID: pool})
		}
	}
	for k := range s.others {
		job, pool, _ := s.keys.ParseInProgress(k)
		keep(k, job, pool)
	}
	// Pools that left the set during the walk: their keys, rebuilt.
	for p, bits := range s.seenBits {
		if id := s.poolIDs[p]; !inSet[id] {
			for j, job := range s.jobNames {
				if j/64 < len(bits) && bits[j/64]&(1<<(j%64)) != 0 {
					keep(s.keys.InProgress(job, id), job, id)
				}
			}
		}
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
			return OrphanResult{Candidates: s.seen, Calls: s.calls}, fmt.Errorf("scan for in-progress lists: %w", err)
		}
		done, err := s.Step(ctx, c)
		if err != nil {
			return OrphanResult{Candidates: s.seen, Calls: s.calls}, err
		}
		if progress != nil {
			progress(s.Progress())
		}
		if done {
			return s.Finish(ctx, c)
		}
	}
}
