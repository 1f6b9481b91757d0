package reaper

// This file carries out job-set plans (jobs.go) with the scripts in
// lua/jobs_*.lua: every member is moved or deleted by exactly one atomic
// script call that first checks it is still there, so a run killed at any
// point loses and doubles nothing, and running the action again finishes it.

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

//go:embed lua/jobs_requeue.lua
var luaJobsRequeue string

//go:embed lua/jobs_delete.lua
var luaJobsDelete string

//go:embed lua/jobs_queue_delete.lua
var luaJobsQueueDelete string

// JobsResult is what a job action did.
type JobsResult struct {
	// Done is how many members were requeued or deleted; ByName per name.
	Done   int64
	ByName map[string]int64
	// UniqueDeleted is how many unique keys were deleted with them.
	UniqueDeleted int64
	// Gone are members that left the set (or queue) after the plan read
	// them; Rescored those still in the set at another score. Both were left
	// alone. At most ReportLimit of each are listed; GoneCount and
	// RescoredCount count them all.
	Gone, Rescored           []model.SetJob
	GoneCount, RescoredCount int64
	// Skipped are members a bulk run left alone, by reason.
	Skipped map[string]int64
	// Calls is the number of script calls; Longest the longest one.
	Calls   int
	Longest time.Duration
}

// ReportLimit is how many gone or rescored members a result lists.
const ReportLimit = 100

// JobsProgress is called after each script call with the members done so
// far and the plan's total.
type JobsProgress func(done, total int64)

// JobsExecutor runs job-set plans on one namespace.
type JobsExecutor struct {
	keys  redisq.Keys
	batch int

	requeue, del, queueDel *redis.Script
}

// NewJobsExecutor returns an executor; batch is the most members per script
// call (DefaultBatch when below 1).
func NewJobsExecutor(namespace string, batch int) *JobsExecutor {
	if batch < 1 {
		batch = DefaultBatch
	}
	return &JobsExecutor{
		keys:     redisq.NewKeys(namespace),
		batch:    batch,
		requeue:  redis.NewScript(-1, luaJobsRequeue),
		del:      redis.NewScript(-1, luaJobsDelete),
		queueDel: redis.NewScript(-1, luaJobsQueueDelete),
	}
}

// Execute carries out a plan. Jobs given one by one go in batches of the
// plan's members. A bulk plan scans the set again (ZSCAN, of job type
// Target.Job when set) and takes what the plan's rules take, in batches;
// each batch is sorted by score, so in one batch the oldest go first. The
// scan returns every member that stays in the set for the whole run. A
// cancelled ctx stops between script calls: what was done stays done.
func (e *JobsExecutor) Execute(ctx context.Context, c redis.Conn, plan JobsPlan, progress JobsProgress) (JobsResult, error) {
	res := JobsResult{ByName: map[string]int64{}, Skipped: map[string]int64{}}
	if plan.keys != e.keys {
		return res, fmt.Errorf("%s: plan is for namespace %q, executor for %q", plan.Action, plan.Namespace, e.keys.Prefix())
	}
	if plan.Target.Set == "" {
		err := e.queueDelete(ctx, c, plan, &res, progress)
		return res, err
	}
	flush := func(items []JobItem) error {
		if len(items) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			// Stop before a call: a call with a done context would cost the
			// connection.
			return fmt.Errorf("%s: stopped after %d jobs: %w", plan.Action, res.Done, err)
		}
		sortItems(items)
		for len(items) > 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s: stopped after %d jobs: %w", plan.Action, res.Done, err)
			}
			n := batchLen(items, e.batch)
			if err := e.batchCall(ctx, c, plan, items[:n], &res); err != nil {
				return err
			}
			items = items[n:]
			if progress != nil {
				progress(res.Done, plan.Total)
			}
		}
		return nil
	}
	switch {
	case !plan.Target.All:
		return res, flush(append([]JobItem(nil), plan.Items...))
	case plan.everyKept:
		// The plan holds every member it counted: take exactly those (each
		// re-checked by its script call), without a second scan.
		for _, s := range plan.Skipped {
			res.Skipped[s.Reason] += s.N
		}
		return res, flush(plan.every)
	}
	s := redisq.NewSetScan(e.keys, plan.Target.Set, redisq.SetFilter{Job: plan.Target.Job}, max(e.batch, BulkScanCount))
	var pending []JobItem
	for !s.Progress().Done {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("%s: stopped after %d jobs: %w", plan.Action, res.Done, err)
		}
		jobs, err := s.Step(ctx, c)
		if err != nil {
			return res, fmt.Errorf("%s: %w", plan.Action, err)
		}
		for _, sj := range jobs {
			it, err := plan.item(sj)
			if err != nil {
				res.Skipped[skipReason(err)]++
				continue
			}
			pending = append(pending, it)
			if len(pending) == e.batch {
				if err := flush(pending); err != nil {
					return res, err
				}
				pending = pending[:0]
			}
		}
	}
	return res, flush(pending)
}

// MaxBatchBytes bounds the member bytes of one script call, so that a
// batch of big jobs holds Redis no longer than a batch of small ones: the
// script reads, removes and pushes each member, in time that grows with its
// bytes.
const MaxBatchBytes = 32 << 10

// batchLen is how many of items the next script call takes: at most max,
// and at most MaxBatchBytes of members (at least one).
func batchLen(items []JobItem, max int) int {
	size := 0
	for i, it := range items {
		if i == max {
			return i
		}
		size += len(it.Job.Raw)
		if i > 0 && size > MaxBatchBytes {
			return i
		}
	}
	return len(items)
}

// batchCall runs one script call over items and records its outcome.
func (e *JobsExecutor) batchCall(ctx context.Context, c redis.Conn, plan JobsPlan, items []JobItem, res *JobsResult) error {
	setKey := redisq.SetKey(e.keys, plan.Target.Set)
	args := []any{setKey}
	keyIndex := map[string]int{}
	index := func(k string) int {
		if i, ok := keyIndex[k]; ok {
			return i
		}
		args = append(args, k)
		keyIndex[k] = len(args) // KEYS is 1-based and KEYS[1] is the set
		return keyIndex[k]
	}
	argv := make([]any, 0, 5*len(items))
	script := e.del
	if plan.Action == JobsRequeue {
		script = e.requeue
		for _, it := range items {
			recipe, lit := it.edit.Recipe()
			argv = append(argv, it.Job.Raw, it.Job.ScoreText, recipe, lit, index(it.QueueKey))
		}
	} else {
		for _, it := range items {
			u, id := 0, ""
			if it.UniqueKey != "" {
				u = index(it.UniqueKey)
			}
			if it.Job.Job != nil {
				id = it.Job.Job.ID
			}
			argv = append(argv, it.Job.Raw, it.Job.ScoreText, u, string([]byte{max(it.UniqueMode, '-')}), id)
		}
	}
	nkeys := len(args)
	args = append(args, argv...)
	start := time.Now()
	reply, err := redis.Values(scriptDo(ctx, c, script, nkeys, args))
	took := time.Since(start)
	res.Calls++
	res.Longest = max(res.Longest, took)
	if err != nil {
		return fmt.Errorf("%s %s: %w", plan.Action, setKey, err)
	}
	var status, codes string
	if _, err := redis.Scan(reply, &status, &codes); err != nil {
		return fmt.Errorf("%s %s: unexpected script reply: %w", plan.Action, setKey, err)
	}
	if status == "wrongtype" {
		return fmt.Errorf("%s %s: %s: %w", plan.Action, setKey, codes, ErrWrongType)
	}
	if status != "ok" || len(codes) != len(items) {
		return fmt.Errorf("%s %s: unexpected script reply %q", plan.Action, setKey, status)
	}
	for i, code := range []byte(codes) {
		it := items[i]
		switch code {
		case 'm', 'd', 'u':
			res.Done++
			if it.Job.Job != nil {
				res.ByName[it.Job.Job.Name]++
			}
			if code == 'u' {
				res.UniqueDeleted++
			}
		case 'g':
			res.GoneCount++
			if len(res.Gone) < ReportLimit {
				res.Gone = append(res.Gone, it.Job)
			}
		case 's':
			res.RescoredCount++
			if len(res.Rescored) < ReportLimit {
				res.Rescored = append(res.Rescored, it.Job)
			}
		default:
			return fmt.Errorf("%s %s: unexpected script code %q", plan.Action, setKey, code)
		}
	}
	return nil
}

// scriptDo runs a script with a variable number of keys (EVALSHA, then
// EVAL when Redis does not have it yet).
func scriptDo(ctx context.Context, c redis.Conn, s *redis.Script, nkeys int, args []any) (any, error) {
	return s.DoContext(ctx, c, append([]any{nkeys}, args...)...)
}

// queueDelete removes each planned job from its queue, one script call per
// job.
func (e *JobsExecutor) queueDelete(ctx context.Context, c redis.Conn, plan JobsPlan, res *JobsResult, progress JobsProgress) error {
	for _, it := range plan.Items {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("delete from %s: stopped after %d jobs: %w", it.QueueKey, res.Done, err)
		}
		args := []any{it.QueueKey}
		if it.UniqueKey != "" {
			args = append(args, it.UniqueKey)
		}
		nkeys := len(args)
		args = append(args, it.Job.Raw)
		start := time.Now()
		reply, err := redis.Values(scriptDo(ctx, c, e.queueDel, nkeys, args))
		res.Calls++
		res.Longest = max(res.Longest, time.Since(start))
		if err != nil {
			return fmt.Errorf("delete from %s: %w", it.QueueKey, err)
		}
		var status string
		var removed, unique int64
		if len(reply) > 0 {
			status, _ = redis.String(reply[0], nil)
		}
		if status == "wrongtype" {
			return fmt.Errorf("delete from %s: %w", it.QueueKey, ErrWrongType)
		}
		if _, err := redis.Scan(reply, &status, &removed, &unique); err != nil || status != "ok" {
			return fmt.Errorf("delete from %s: unexpected script reply %v", it.QueueKey, reply)
		}
		if removed == 0 {
			res.GoneCount++
			if len(res.Gone) < ReportLimit {
				res.Gone = append(res.Gone, it.Job)
			}
			continue
		}
		res.Done++
		res.UniqueDeleted += unique
		if it.Job.Job != nil {
			res.ByName[it.Job.Job.Name]++
		}
		if progress != nil {
			progress(res.Done, plan.Total)
		}
	}
	return nil
}
