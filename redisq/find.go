package redisq

// This file owns the search for jobs in every place gocraft/work keeps
// one: the queues, the pools' in-progress lists, the retry, scheduled and
// dead sets, the busy workers' observations and the unique keys of the jobs
// found. Every key is read in steps (LRANGE chunks, set walks, SCAN);
// nothing is written.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// The places a job can be, as Find names them.
const (
	PlaceQueue      = "queues"
	PlaceInProgress = "in-progress"
	PlaceRetry      = "retry"
	PlaceScheduled  = "scheduled"
	PlaceDead       = "dead"
	PlaceWorker     = "workers"
	PlaceUnique     = "unique"
)

// FindPlaces are every place, in the order Find looks.
var FindPlaces = []string{PlaceQueue, PlaceInProgress, PlaceRetry, PlaceScheduled, PlaceDead, PlaceWorker, PlaceUnique}

// Place is one place a job was found.
type Place struct {
	Kind string `json:"place"`
	Key  string `json:"key"`
	ID   string `json:"id"`
	Name string `json:"name"`
	// Position (queues): how many jobs run before it.
	Position int64 `json:"position,omitempty"`
	// At (sets): the score, epoch seconds; ScoreField names it.
	At         int64  `json:"at,omitempty"`
	ScoreField string `json:"score_field,omitempty"`
	// Pool and PoolStatus (in-progress, workers): the pool and its
	// heartbeat's status (alive, late, dead).
	Pool       string `json:"pool,omitempty"`
	PoolStatus string `json:"pool_status,omitempty"`
	// Worker, StartedAt, CheckinAt (workers): the busy worker's
	// observation.
	Worker    string `json:"worker,omitempty"`
	StartedAt int64  `json:"started_at,omitempty"`
	CheckinAt int64  `json:"checkin_at,omitempty"`
	// TTL (unique): seconds left on the key; -1 when it has none.
	TTL int64 `json:"ttl,omitempty"`

	job *model.JobFields
}

// FindSpec says what to look for: jobs with one of IDs (any when empty)
// that Query matches, in the places In names (all when empty).
type FindSpec struct {
	IDs   []string
	Query *model.Query
	In    map[string]bool
	Now   time.Time
}

func (f FindSpec) looks(place string) bool { return len(f.In) == 0 || f.In[place] }

func (f FindSpec) matchID(j *model.JobFields) bool {
	if len(f.IDs) == 0 {
		return true
	}
	for _, id := range f.IDs {
		if j.ID == id {
			return true
		}
	}
	return false
}

// Find looks for jobs in every place f names and returns one Place per
// job found, in the order of FindPlaces.
func Find(ctx context.Context, c redis.Conn, keys Keys, f FindSpec) ([]Place, error) {
	var out []Place
	pools, err := poolStatuses(ctx, c, keys, f.Now)
	if err != nil {
		return nil, err
	}
	if f.looks(PlaceQueue) {
		names, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", keys.KnownJobs()))
		if err != nil {
			return nil, fmt.Errorf("find: read %s: %w", keys.KnownJobs(), err)
		}
		for _, n := range names {
			key := keys.Queue(n)
			err := WalkQueue(ctx, c, key, func(pos int64, raw []byte) {
				if j, _ := model.ParseJobFields(raw); j != nil && f.matchID(j) && f.Query.MatchQueueJob(j) {
					out = append(out, Place{Kind: PlaceQueue, Key: key, ID: j.ID, Name: j.Name, Position: pos, job: j})
				}
			})
			if err != nil {
				return nil, fmt.Errorf("find: %s: %w", key, err)
			}
		}
	}
	if f.looks(PlaceInProgress) {
		err := scanKeys(ctx, c, keys.InProgressPattern(), func(key string) error {
			_, pool, ok := keys.ParseInProgress(key)
			if !ok {
				return nil
			}
			return WalkQueue(ctx, c, key, func(_ int64, raw []byte) {
				if j, _ := model.ParseJobFields(raw); j != nil && f.matchID(j) && f.Query.MatchQueueJob(j) {
					out = append(out, Place{Kind: PlaceInProgress, Key: key, ID: j.ID, Name: j.Name, Pool: pool, PoolStatus: string(pools[pool]), job: j})
				}
			})
		})
		if err != nil {
			return nil, fmt.Errorf("find: %w", err)
		}
	}
	for _, set := range []model.SetName{model.SetRetry, model.SetScheduled, model.SetDead} {
		if !f.looks(string(set)) {
			continue
		}
		filter := SetFilter{Query: f.Query}
		if len(f.IDs) == 1 {
			filter.ID = f.IDs[0]
		}
		s := NewSetWalk(keys, set, filter, BulkFindCount)
		var hits []model.SetJob
		for !s.Progress().Done {
			jobs, err := s.Step(ctx, c)
			if err != nil {
				return nil, fmt.Errorf("find: %w", err)
			}
			for _, sj := range jobs {
				if sj.Job != nil && f.matchID(sj.Job) {
					hits = append(hits, sj)
				}
			}
		}
		if hits, err = ReadScores(ctx, c, keys, set, hits); err != nil {
			return nil, fmt.Errorf("find: %w", err)
		}
		for _, sj := range hits {
			out = append(out, Place{Kind: string(set), Key: SetKey(keys, set), ID: sj.Job.ID, Name: sj.Job.Name, At: int64(sj.Score), ScoreField: set.ScoreField(), job: sj.Job})
		}
	}
	if f.looks(PlaceWorker) {
		ws, err := findWorkers(ctx, c, keys, f, pools)
		if err != nil {
			return nil, err
		}
		out = append(out, ws...)
	}
	if f.looks(PlaceUnique) {
		us, err := findUnique(ctx, c, keys, out)
		if err != nil {
			return nil, err
		}
		out = append(out, us...)
	}
	return out, nil
}

// BulkFindCount is the members each call of find's set walks reads.
const BulkFindCount = 5 * DefaultSetScanCount

// scanKeys hands each key matching pattern to each, SCAN by SCAN.
func scanKeys(ctx context.Context, c redis.Conn, pattern string, each func(string) error) error {
	cursor := "0"
	for {
		v, err := redis.Values(redis.DoContext(c, ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", 1000))
		if err != nil {
			return fmt.Errorf("scan %s: %w", pattern, err)
		}
		var ks []string
		if _, err := redis.Scan(v, &cursor, &ks); err != nil {
			return fmt.Errorf("scan %s: %w", pattern, err)
		}
		for _, k := range ks {
			if err := each(k); err != nil {
				return err
			}
		}
		if cursor == "0" {
			return nil
		}
	}
}

// poolStatuses is each pool's status in worker_pools by its heartbeat.
func poolStatuses(ctx context.Context, c redis.Conn, keys Keys, now time.Time) (map[string]model.Status, error) {
	ids, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", keys.WorkerPools()))
	if err != nil {
		return nil, fmt.Errorf("find: read %s: %w", keys.WorkerPools(), err)
	}
	out := map[string]model.Status{}
	for _, id := range ids {
		at, err := redis.String(redis.DoContext(c, ctx, "HGET", keys.Heartbeat(id), "heartbeat_at"))
		if err != nil && !errors.Is(err, redis.ErrNil) {
			return nil, fmt.Errorf("find: read %s: %w", keys.Heartbeat(id), err)
		}
		n, perr := strconv.ParseInt(at, 10, 64)
		hb := &model.Heartbeat{HeartbeatAt: n, HeartbeatAtMissing: at == "", HeartbeatAtMalformed: at != "" && perr != nil}
		out[id] = model.Classify(hb, now, model.DefaultDeadAfter)
	}
	return out, nil
}

// findWorkers reads the observations of the workers of each pool in
// worker_pools and keeps those running a job that matches.
func findWorkers(ctx context.Context, c redis.Conn, keys Keys, f FindSpec, pools map[string]model.Status) ([]Place, error) {
	var out []Place
	for pool, status := range pools {
		ids, err := redis.String(redis.DoContext(c, ctx, "HGET", keys.Heartbeat(pool), "worker_ids"))
		if err != nil && !errors.Is(err, redis.ErrNil) {
			return nil, fmt.Errorf("find: read %s: %w", keys.Heartbeat(pool), err)
		}
		for _, w := range strings.Split(ids, ",") {
			if w == "" {
				continue
			}
			key := workerKeyPrefix(keys) + w
			obs, err := redis.StringMap(redis.DoContext(c, ctx, "HGETALL", key))
			if err != nil {
				return nil, fmt.Errorf("find: read %s: %w", key, err)
			}
			if obs["job_id"] == "" {
				continue
			}
			j := &model.JobFields{ID: obs["job_id"], Name: obs["job_name"], Args: []byte(obs["args"])}
			started, _ := strconv.ParseInt(obs["started_at"], 10, 64)
			j.EnqueuedAt = started
			if !f.matchID(j) || !f.Query.MatchFields(j) {
				continue
			}
			checkin, _ := strconv.ParseInt(obs["checkin_at"], 10, 64)
			out = append(out, Place{Kind: PlaceWorker, Key: key, ID: j.ID, Name: j.Name, Pool: pool, PoolStatus: string(status), Worker: w, StartedAt: started, CheckinAt: checkin})
		}
	}
	return out, nil
}

// findUnique reports the unique keys of the unique jobs found that still
// exist (a key that blocks a new EnqueueUnique of the same arguments), with
// their TTL.
func findUnique(ctx context.Context, c redis.Conn, keys Keys, found []Place) ([]Place, error) {
	var out []Place
	seen := map[string]bool{}
	for _, p := range found {
		if p.job == nil {
			continue
		}
		key, ok, err := p.job.UniqueKeyIn(keys.Prefix())
		if err != nil || !ok || seen[key] {
			continue
		}
		seen[key] = true
		ttl, err := redis.Int64(redis.DoContext(c, ctx, "TTL", key))
		if err != nil {
			return nil, fmt.Errorf("find: TTL %q: %w", key, err)
		}
		if ttl == -2 {
			continue // no such key
		}
		out = append(out, Place{Kind: PlaceUnique, Key: key, ID: p.ID, Name: p.Name, TTL: ttl})
	}
	return out, nil
}
