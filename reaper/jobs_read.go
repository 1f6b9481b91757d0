package reaper

// This file owns the reads of the job-set plans (jobs.go): members by id,
// jobs of a queue by id, the known job names and the names live pools
// serve.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// findRefs finds the members of a set that refs address. Refs with a score
// are read with ZRANGEBYSCORE at that score; the others by one walk of the
// set (redisq.SetScan, looking for the id when there is one). A ref that finds nothing fails
// with ErrJobNotFound. Every member with a ref's id (at its score) is
// taken, as gocraft/work's Client takes them.
func findRefs(ctx context.Context, c redis.Conn, keys redisq.Keys, set model.SetName, refs []JobRef) ([]model.SetJob, error) {
	key := redisq.SetKey(keys, set)
	var out []model.SetJob
	seen := map[string]bool{}
	found := make([]bool, len(refs))
	take := func(sj model.SetJob) {
		if !seen[string(sj.Raw)] {
			seen[string(sj.Raw)] = true
			out = append(out, sj)
		}
	}
	byID := map[string][]int{}
	for i, r := range refs {
		if r.Score == "" {
			byID[r.ID] = append(byID[r.ID], i)
			continue
		}
		vals, err := redis.Values(redis.DoContext(c, ctx, "ZRANGEBYSCORE", key, r.Score, r.Score, "WITHSCORES"))
		if err != nil {
			return nil, fmt.Errorf("find %s in %s: %w", r, key, err)
		}
		for k := 0; k+1 < len(vals); k += 2 {
			raw, _ := vals[k].([]byte)
			score, _ := vals[k+1].([]byte)
			sj := model.ParseSetJob(set, raw, string(score))
			if (r.Raw != nil && bytes.Equal(raw, r.Raw)) || (r.Raw == nil && sj.Job != nil && sj.Job.ID == r.ID) {
				found[i] = true
				take(sj)
			}
		}
	}
	if len(byID) > 0 {
		f := redisq.SetFilter{}
		if len(byID) == 1 {
			for id := range byID {
				f.ID = id
			}
		}
		s := redisq.NewSetScan(keys, set, f, BulkScanCount)
		var hits []model.SetJob
		for !s.Progress().Done {
			jobs, err := s.Step(ctx, c)
			if err != nil {
				return nil, err
			}
			for _, sj := range jobs {
				if sj.Job == nil {
					continue
				}
				if _, ok := byID[sj.Job.ID]; ok {
					hits = append(hits, sj)
				}
			}
		}
		// Jobs given by id are addressed by their score too, as
		// gocraft/work's Client addresses them: read it.
		hits, err := redisq.ReadScores(ctx, c, keys, set, hits)
		if err != nil {
			return nil, err
		}
		for _, sj := range hits {
			for _, i := range byID[sj.Job.ID] {
				found[i] = true
			}
			take(sj)
		}
	}
	for i, ok := range found {
		if !ok {
			return nil, fmt.Errorf("%s: %w in %s", refs[i], ErrJobNotFound, key)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score < out[j].Score
		}
		return bytes.Compare(out[i].Raw, out[j].Raw) < 0
	})
	return out, nil
}

// jobsKnown reads <ns>:known_jobs.
func jobsKnown(ctx context.Context, c redis.Conn, keys redisq.Keys) (map[string]bool, error) {
	names, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", keys.KnownJobs()))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", keys.KnownJobs(), err)
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}

// jobsPaused reads which of names are paused (their paused key exists),
// in one pipeline: a job requeued into a paused type waits until it is
// unpaused.
func jobsPaused(ctx context.Context, c redis.Conn, keys redisq.Keys, names []string) (map[string]bool, error) {
	for _, n := range names {
		if err := c.Send("EXISTS", keys.Paused(n)); err != nil {
			return nil, fmt.Errorf("read paused keys: %w", err)
		}
	}
	if err := c.Flush(); err != nil {
		return nil, fmt.Errorf("read paused keys: %w", err)
	}
	out := map[string]bool{}
	var first error
	for _, n := range names {
		v, err := redis.Int(redis.ReceiveContext(c, ctx))
		if err != nil && first == nil {
			first = fmt.Errorf("read paused keys: %w", err)
		}
		if v > 0 {
			out[n] = true
		}
	}
	return out, first
}

// jobsServed reads the job names that the heartbeats of the pools in
// <ns>:worker_pools list, in one pipeline, counting only pools whose
// heartbeat is not dead by upstream's rule (model.Classify with the default
// cut-off, against Redis's clock now): a job pushed for a dead pool waits
// as long as one pushed for no pool.
func jobsServed(ctx context.Context, c redis.Conn, keys redisq.Keys, now time.Time) (map[string]bool, error) {
	pools, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", keys.WorkerPools()))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", keys.WorkerPools(), err)
	}
	out := map[string]bool{}
	for _, p := range pools {
		if err := c.Send("HMGET", keys.Heartbeat(p), "job_names", "heartbeat_at"); err != nil {
			return nil, fmt.Errorf("read heartbeats: %w", err)
		}
	}
	if err := c.Flush(); err != nil {
		return nil, fmt.Errorf("read heartbeats: %w", err)
	}
	var first error
	for range pools {
		v, err := redis.Strings(redis.ReceiveContext(c, ctx))
		if err != nil || len(v) != 2 {
			if first == nil {
				first = fmt.Errorf("read heartbeats: %w", errOr(err, errors.New("unexpected reply")))
			}
			continue
		}
		at, perr := strconv.ParseInt(v[1], 10, 64)
		hb := &model.Heartbeat{HeartbeatAt: at, HeartbeatAtMissing: v[1] == "", HeartbeatAtMalformed: v[1] != "" && perr != nil}
		if model.Classify(hb, now, model.DefaultDeadAfter) == model.StatusDead {
			continue
		}
		for _, n := range strings.Split(v[0], ",") {
			if n != "" {
				out[n] = true
			}
		}
	}
	return out, first
}

// queueChunk is how many queue items one LRANGE reads while looking for
// jobs by id.
const queueChunk = 1000

// queueRef is how a job of a queue is asked for: by its exact bytes, or
// by its id.
type queueRef struct {
	raw bool
	s   string
}

func refOf(r JobRef) queueRef {
	if r.Raw != nil {
		return queueRef{raw: true, s: string(r.Raw)}
	}
	return queueRef{s: r.ID}
}

// planQueueDelete finds jobs in a queue by id, walking it in chunks.
func planQueueDelete(ctx context.Context, c redis.Conn, keys redisq.Keys, t JobsTarget) ([]JobItem, error) {
	key := keys.Queue(t.Queue)
	want := map[queueRef]bool{}
	for _, r := range t.Refs {
		want[refOf(r)] = true
	}
	found := map[queueRef]bool{}
	var items []JobItem
	seen := map[string]bool{}
	for start := 0; ; start += queueChunk {
		raws, err := redis.ByteSlices(redis.DoContext(c, ctx, "LRANGE", key, start, start+queueChunk-1))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", key, err)
		}
		for _, raw := range raws {
			j, _ := model.ParseJobFields(raw)
			byRaw := queueRef{raw: true, s: string(raw)}
			var hit queueRef
			switch {
			case want[byRaw]:
				hit = byRaw
			case j != nil && want[queueRef{s: j.ID}]:
				hit = queueRef{s: j.ID}
			default:
				continue
			}
			found[hit] = true
			if seen[string(raw)] {
				continue
			}
			seen[string(raw)] = true
			it := JobItem{Job: model.SetJob{Raw: raw, Job: j}, QueueKey: key}
			if j != nil {
				if uk, ok, err := j.UniqueKeyIn(keys.Prefix()); err == nil && ok {
					it.UniqueKey, it.UniqueMode = uk, 'a'
				}
			}
			items = append(items, it)
		}
		if len(raws) < queueChunk {
			break
		}
	}
	for _, r := range t.Refs {
		if !found[refOf(r)] {
			return nil, fmt.Errorf("%s: %w in %s", r, ErrJobNotFound, key)
		}
	}
	return items, nil
}

// errOr is err, or alt when err is nil: a reply of the wrong shape is an
// error even when redigo returned none.
func errOr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}
