// Leaked in-progress entries (see model.ClassifyLeaked): the reads that
// find them. Only lists that hold more entries than their pool's lock_info
// counts are read, so a namespace without drift costs nothing more.

package redisq

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// MaxLeakedList is the longest in-progress list read for leaked entries:
// a leak leaves a few entries, a longer list is a busy pool's and is left
// as it is.
const MaxLeakedList = 10000

// LeakCandidate is one in-progress list that may hold leaked entries.
type LeakCandidate struct {
	PoolID, JobName string
	// Counted is the pool's lock_info field for the type (0 when absent).
	Counted int64
	// WorkerIDs are the pool's workers, from its heartbeat (none without).
	WorkerIDs []string
}

// LeakCandidates lists, from a snapshot's pools, the in-progress lists that
// hold more entries than their pool's lock_info field counts, for the given
// job types (every type when jobs is empty).
func LeakCandidates(pools []model.Pool, jobs ...string) []LeakCandidate {
	want := map[string]bool{}
	for _, j := range jobs {
		want[j] = true
	}
	var out []LeakCandidate
	for _, p := range pools {
		for job, n := range p.InProgress {
			if len(want) > 0 && !want[job] {
				continue
			}
			if n > max(p.LockInfo[job], 0) {
				c := LeakCandidate{PoolID: p.ID, JobName: job, Counted: p.LockInfo[job]}
				if p.Heartbeat != nil {
					c.WorkerIDs = p.Heartbeat.WorkerIDs
				}
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].JobName != out[j].JobName {
			return out[i].JobName < out[j].JobName
		}
		return out[i].PoolID < out[j].PoolID
	})
	return out
}

// ReadLeaked reads each candidate list, its pool's busy workers' job ids
// and, for each leaked entry, what its unique key holds. Lists longer than
// MaxLeakedList, and keys of the wrong type, are passed over.
func ReadLeaked(ctx context.Context, conn redis.Conn, keys Keys, cands []LeakCandidate) ([]model.LeakedEntry, error) {
	var out []model.LeakedEntry
	for _, c := range cands {
		key := keys.InProgress(c.JobName, c.PoolID)
		n, err := redis.Int64(redis.DoContext(conn, ctx, "LLEN", key))
		if err != nil {
			var re redis.Error
			if errors.As(err, &re) {
				continue
			}
			return nil, fmt.Errorf("read %s: %w", key, err)
		}
		if n == 0 || n > MaxLeakedList {
			continue
		}
		entries, err := redis.ByteSlices(redis.DoContext(conn, ctx, "LRANGE", key, 0, n-1))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", key, err)
		}
		busy, err := busyJobIDs(ctx, conn, keys, c.WorkerIDs)
		if err != nil {
			return nil, err
		}
		for _, i := range model.ClassifyLeaked(entries, c.Counted, busy) {
			f, _ := model.ParseJobFields(entries[i])
			l := model.LeakedEntry{Key: key, PoolID: c.PoolID, JobName: c.JobName, Raw: entries[i], ID: f.ID, UniqueKey: f.UniqueKey}
			if l.Holder, err = uniqueHolder(ctx, conn, f.UniqueKey); err != nil {
				return nil, err
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// busyJobIDs is the set of job ids the given workers' observations name.
func busyJobIDs(ctx context.Context, conn redis.Conn, keys Keys, workers []string) (map[string]bool, error) {
	busy := map[string]bool{}
	for _, w := range workers {
		id, err := redis.String(redis.DoContext(conn, ctx, "HGET", workerKeyPrefix(keys)+w, "job_id"))
		var re redis.Error
		switch {
		case errors.Is(err, redis.ErrNil), errors.As(err, &re):
		case err != nil:
			return nil, fmt.Errorf("read worker %s: %w", w, err)
		default:
			busy[id] = true
		}
	}
	return busy, nil
}

// uniqueHolder is the id of the job a unique key holds ("" when the key is
// absent, of another type, or holds no job, as v0.5.1's "1").
func uniqueHolder(ctx context.Context, conn redis.Conn, key string) (string, error) {
	v, err := redis.Bytes(redis.DoContext(conn, ctx, "GET", key))
	var re redis.Error
	switch {
	case errors.Is(err, redis.ErrNil), errors.As(err, &re):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	f, _ := model.ParseJobFields(v)
	if f == nil {
		return "", nil
	}
	return f.ID, nil
}

// readLeaked is the snapshot's last step, only when drift still shows: it
// reads the drifted job types' lists that hold more than their pools count,
// keeps the leaked entries found, and classifies the snapshot again, so
// that they are reported as leaked, not as drift.
func (rd *snapshotReader) readLeaked() error {
	// A list that holds more than its pool counts makes its job type
	// drift, so reading the drifted types' lists finds every leak.
	rd.snap.LeakAware = true
	var drifted []string
	for _, jt := range rd.snap.JobTypes {
		if jt.Drift {
			drifted = append(drifted, jt.Name)
		}
	}
	if len(drifted) == 0 {
		return nil
	}
	cands := LeakCandidates(rd.snap.Pools, drifted...)
	if len(cands) == 0 {
		return nil
	}
	leaked, err := ReadLeaked(rd.ctx, rd.conn, rd.keys, cands)
	if err != nil {
		return err
	}
	if len(leaked) == 0 {
		return nil
	}
	rd.snap.Leaked = leaked
	model.Analyze(rd.snap, rd.deadAfter)
	return nil
}
