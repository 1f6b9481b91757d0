package redisq

// This file owns the search for jobs in every place gocraft/work keeps
// one: the queues, the pools' in-progress lists, the retry, scheduled and
// dead sets, the busy workers' observations and the unique keys of the jobs
// found. Every key is read in steps (LRANGE chunks, set walks, SCAN);
// nothing is written.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
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
	// Position (queues): how many jobs run before it; Paused: its type
	// is paused, so none of them runs until it is unpaused.
	Position int64 `json:"position,omitempty"`
	Paused   bool  `json:"paused,omitempty"`
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
	// InValue (unique): the job is the key's value, not only named by it
	// (gocraft/work master and gojek/work keep EnqueueUniqueByKey's job
	// there): the job that runs when a worker takes its stand-in.
	InValue bool `json:"in_value,omitempty"`

	job *model.JobFields
}

// MarshalJSON is the place as `find --json` prints it: a queue's
// position even when it is 0 (the next to run), and the id null for a
// unique key whose job is in no other place.
func (p Place) MarshalJSON() ([]byte, error) {
	type plain Place
	out := struct {
		plain
		ID       *string `json:"id"`
		Position *int64  `json:"position,omitempty"`
	}{plain: plain(p)}
	if p.ID != "" || p.Kind != PlaceUnique {
		out.ID = &p.ID
	}
	if p.Kind == PlaceQueue {
		out.Position = &p.Position
	}
	return json.Marshal(out)
}

// FindSpec says what to look for: jobs with one of IDs (any when empty)
// that Query matches, in the places In names (all when empty).
type FindSpec struct {
	IDs   []string
	Query *model.Query
	In    map[string]bool
	Now   time.Time
	// Paced makes the scans of the unique keys (a query by name and
	// arguments only, see find_unique.go; the values of a find by id, and
	// the walk that finds them with the in-progress lists) pause after
	// each call as the orphan scan does; Progress, when not nil, is told
	// how far the first got.
	Paced    bool
	Progress func(FindProgress)
}

func (f FindSpec) looks(place string) bool { return len(f.In) == 0 || f.In[place] }

// mayHold returns what tells whether a job's raw bytes may be one f looks
// for: false only when they lack every id's quoted text (or the query's
// needle, see SetFilter.needle), so that most jobs are never parsed.
func (f FindSpec) mayHold() func(raw []byte) bool {
	var needles [][]byte
	if len(f.IDs) == 0 {
		if n := needleOf("", "", f.Query); n != nil {
			needles = append(needles, n)
		}
	}
	for _, id := range f.IDs {
		if !literalInJSON(id) {
			needles = nil // an id that may be written escaped: parse every job
			break
		}
		needles = append(needles, []byte(`"`+id+`"`))
	}
	return func(raw []byte) bool {
		if len(needles) == 0 {
			return true
		}
		for _, n := range needles {
			if holds(raw, n) {
				return true
			}
		}
		return false
	}
}

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
// job found, in the order of FindPlaces. A query by name and arguments only
// also finds the unique keys whose job is in no other place (their Place
// has no ID).
func Find(ctx context.Context, c redis.Conn, keys Keys, f FindSpec) ([]Place, error) {
	var out []Place
	mayHold := f.mayHold()
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
			from := len(out)
			err := WalkQueue(ctx, c, key, func(pos int64, raw []byte) {
				if !mayHold(raw) {
					return
				}
				if j, _ := model.ParseJobFields(raw); j != nil && f.matchID(j) && f.Query.MatchQueueJob(j) {
					out = append(out, Place{Kind: PlaceQueue, Key: key, ID: j.ID, Name: j.Name, Position: pos, job: j})
				}
			})
			if err != nil {
				return nil, fmt.Errorf("find: %s: %w", key, err)
			}
			if len(out) > from {
				paused, err := redis.Bool(redis.DoContext(c, ctx, "EXISTS", keys.Paused(n)))
				if err != nil {
					return nil, fmt.Errorf("find: read %s: %w", keys.Paused(n), err)
				}
				for i := from; i < len(out); i++ {
					out[i].Paused = paused
				}
			}
		}
	}
	// A find by id that looks at both the in-progress lists and the unique
	// keys walks the keyspace once for both (the namespace's keys, each
	// sorted out by its name): on a Redis of many keys the walk is most of
	// find's time.
	oneScan := f.looks(PlaceInProgress) && f.looks(PlaceUnique) && len(f.IDs) > 0 && keys.Prefix() != ""
	var uniqueKeys []string
	if f.looks(PlaceInProgress) {
		pattern, lists := keys.InProgressPattern(), func(batch []string) []string { return batch }
		if oneScan {
			pattern = escapeGlob(keys.Prefix()) + "*"
			lists = func(batch []string) []string {
				var in []string
				for _, k := range batch {
					switch {
					case keys.MatchesInProgressPattern(k):
						in = append(in, k)
					case keys.MatchesUniquePattern(k):
						uniqueKeys = append(uniqueKeys, k)
					}
				}
				return in
			}
		}
		// The walk that also finds the unique keys pauses as their own
		// walk does when paced.
		err := scanKeys(ctx, c, pattern, f.Paced && oneScan, func(batch []string) error {
			return readLists(ctx, c, lists(batch), func(key string, raw []byte) {
				_, pool, ok := keys.ParseInProgress(key)
				if !ok || !mayHold(raw) {
					return
				}
				if j, _ := model.ParseJobFields(raw); j != nil && f.matchID(j) && f.Query.MatchQueueJob(j) {
					out = append(out, Place{Kind: PlaceInProgress, Key: key, ID: j.ID, Name: j.Name, Pool: pool, PoolStatus: string(pools.status[pool]), job: j})
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
		// Redis reads the next step while this one is searched: the walk
		// is stepped to its end or to an error, which ends Find, so no
		// call stays in flight on the connection.
		s.ReadAhead()
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
			out = append(out, Place{Kind: string(set), Key: SetKey(keys, set), ID: sj.Job.ID, Name: sj.Job.Name, At: model.ScoreSeconds(sj.Score), ScoreField: set.ScoreField(), job: sj.Job})
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
		seen := map[string]bool{}
		us, err := findUnique(ctx, c, keys, out, seen)
		if err != nil {
			return nil, err
		}
		out = append(out, us...)
		if len(f.IDs) > 0 {
			batches := scanUniqueKeys(ctx, c, keys, f)
			if oneScan {
				batches = keyList(uniqueKeys)
			}
			if us, err = findUniqueValues(ctx, c, keys, f, out, batches); err != nil {
				return nil, err
			}
			out = append(out, us...)
		}
		if f.scansUnique() {
			if us, err = findUniqueKeys(ctx, c, keys, f, seen); err != nil {
				return nil, err
			}
			out = append(out, us...)
		}
	}
	return out, nil
}

// BulkFindCount is the members each call of find's set walks reads.
const BulkFindCount = 5 * DefaultSetScanCount

// keyScanCount is the COUNT hint of each SCAN of find's walks of the
// keyspace (the unique-key scan of a query takes UniqueScanCount).
const keyScanCount = 1000

// scanKeys hands the keys matching pattern to each, one SCAN's batch at a
// time (keyScanCount a call, empty batches left out); paced, it pauses
// after each call as the orphan scan does.
func scanKeys(ctx context.Context, c redis.Conn, pattern string, paced bool, each func([]string) error) error {
	cursor := "0"
	for {
		start := time.Now()
		v, err := redis.Values(redis.DoContext(c, ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", keyScanCount))
		if err != nil {
			return fmt.Errorf("scan %s: %w", pattern, err)
		}
		var ks []string
		if _, err := redis.Scan(v, &cursor, &ks); err != nil {
			return fmt.Errorf("scan %s: %w", pattern, err)
		}
		if len(ks) > 0 {
			if err := each(ks); err != nil {
				return err
			}
		}
		if cursor == "0" {
			return nil
		}
		if paced {
			if err := sleepCtx(ctx, model.ScanPause(time.Since(start))); err != nil {
				return err
			}
		}
	}
}

// readLists hands each item of the lists keys to each: the first
// QueueChunk items of every list in one pipelined round trip, a longer
// list then walked on its own in steps (WalkQueue).
func readLists(ctx context.Context, c redis.Conn, keys []string, each func(key string, raw []byte)) error {
	start, stop := QueueRange(0, QueueChunk)
	cmds := make([]cmd, len(keys))
	for i, k := range keys {
		cmds[i] = cmd{"LRANGE", []any{k, start, stop}}
	}
	replies, err := pipelineChunks(ctx, c, cmds)
	if err != nil {
		return err
	}
	for i, r := range replies {
		raws, err := redis.ByteSlices(r.v, r.err)
		if isWrongType(err) {
			return fmt.Errorf("%s holds a value that is not a list", keys[i])
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", keys[i], err)
		}
		if len(raws) >= QueueChunk {
			if err := WalkQueue(ctx, c, keys[i], func(_ int64, raw []byte) { each(keys[i], raw) }); err != nil {
				return fmt.Errorf("read %s: %w", keys[i], err)
			}
			continue
		}
		for _, raw := range raws {
			each(keys[i], raw)
		}
	}
	return nil
}

// pipelineChunks runs cmds in pipelines of at most findPipeline
// commands (see pipeline), ctx checked between them.
func pipelineChunks(ctx context.Context, c redis.Conn, cmds []cmd) ([]reply, error) {
	out := make([]reply, 0, len(cmds))
	for lo := 0; lo < len(cmds); lo += findPipeline {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rs, err := pipeline(ctx, c, cmds[lo:min(lo+findPipeline, len(cmds))])
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// findPipeline bounds the commands find sends in one round trip.
const findPipeline = 1000

// findPools is each pool in worker_pools: its heartbeat's status and the
// workers it names.
type findPools struct {
	ids     []string
	status  map[string]model.Status
	workers map[string][]string
}

// poolStatuses reads each pool's heartbeat in worker_pools, pipelined.
func poolStatuses(ctx context.Context, c redis.Conn, keys Keys, now time.Time) (findPools, error) {
	p := findPools{status: map[string]model.Status{}, workers: map[string][]string{}}
	ids, err := redis.Strings(redis.DoContext(c, ctx, "SMEMBERS", keys.WorkerPools()))
	if err != nil {
		return p, fmt.Errorf("find: read %s: %w", keys.WorkerPools(), err)
	}
	sort.Strings(ids)
	p.ids = ids
	cmds := make([]cmd, len(ids))
	for i, id := range ids {
		cmds[i] = cmd{"HMGET", []any{keys.Heartbeat(id), "heartbeat_at", "worker_ids"}}
	}
	replies, err := pipelineChunks(ctx, c, cmds)
	if err != nil {
		return p, fmt.Errorf("find: read the heartbeats: %w", err)
	}
	for i, r := range replies {
		v, err := redis.Strings(r.v, r.err)
		if err == nil && len(v) != 2 {
			err = fmt.Errorf("HMGET returned %d values", len(v))
		}
		if err != nil {
			return p, fmt.Errorf("find: read %s: %w", keys.Heartbeat(ids[i]), err)
		}
		at := v[0]
		n, perr := strconv.ParseInt(at, 10, 64)
		hb := &model.Heartbeat{HeartbeatAt: n, HeartbeatAtMissing: at == "", HeartbeatAtMalformed: at != "" && perr != nil}
		p.status[ids[i]] = model.Classify(hb, now, model.DefaultDeadAfter)
		for _, w := range strings.Split(v[1], ",") {
			if w != "" {
				p.workers[ids[i]] = append(p.workers[ids[i]], w)
			}
		}
	}
	return p, nil
}

// findWorkers reads the observations of the workers of each pool in
// worker_pools (pipelined) and keeps those running a job that matches.
func findWorkers(ctx context.Context, c redis.Conn, keys Keys, f FindSpec, pools findPools) ([]Place, error) {
	type worker struct{ pool, id string }
	var ws []worker
	for _, pool := range pools.ids {
		for _, w := range pools.workers[pool] {
			ws = append(ws, worker{pool, w})
		}
	}
	cmds := make([]cmd, len(ws))
	for i, w := range ws {
		cmds[i] = cmd{"HGETALL", []any{workerKeyPrefix(keys) + w.id}}
	}
	replies, err := pipelineChunks(ctx, c, cmds)
	if err != nil {
		return nil, fmt.Errorf("find: read the workers: %w", err)
	}
	var out []Place
	for i, r := range replies {
		pool, w, status := ws[i].pool, ws[i].id, pools.status[ws[i].pool]
		key := workerKeyPrefix(keys) + w
		obs, err := redis.StringMap(r.v, r.err)
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
	return out, nil
}

// findUnique reports the unique keys of the unique jobs found that still
// exist (a key that blocks a new EnqueueUnique of the same arguments), with
// their TTL, and adds them to seen.
func findUnique(ctx context.Context, c redis.Conn, keys Keys, found []Place, seen map[string]bool) ([]Place, error) {
	var out []Place
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
