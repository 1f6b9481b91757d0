package reaper

// This file carries out job-set plans (jobs.go) with the scripts in
// lua/jobs_*.lua: every member is moved or deleted by exactly one atomic
// script call that first checks it is still there, so a run killed at any
// point loses and doubles nothing, and running the action again finishes it.

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	// Journal is the ID of the journal the action was recorded in, set by
	// the caller that kept one ("" without).
	Journal string
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
	// Calls is the number of script calls; Longest the longest wait for
	// one's reply from its sending (a bulk call sent while another runs
	// waits for it too).
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
	// rate bounds the jobs sent a second (jobs_rate.go); 0: no bound.
	rate int

	queueDel *redis.Script
	journal  *JobsJournal // nil: none (journal_jobs.go)
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
		queueDel: redis.NewScript(-1, luaJobsQueueDelete),
	}
}

// Execute carries out a plan. Jobs given one by one go in batches of the
// plan's members. A bulk plan takes the members it kept, or, when it kept
// none (too many bytes), walks the set again (redisq.SetScan, of job type
// Target.Job when set) and takes what the plan's rules take; either way
// the oldest go first. The walk returns every member that stays in the set
// for the whole run. Up to callsAhead script calls are in flight: the next
// call is built and sent while Redis runs the one before, and progress
// counts only replies read. A cancelled ctx stops sending calls and reads
// those already sent: what was done stays done.
func (e *JobsExecutor) Execute(ctx context.Context, c redis.Conn, plan JobsPlan, progress JobsProgress) (JobsResult, error) {
	if plan.Rate > 0 && plan.Rate != e.rate {
		return e.paced(plan.Rate).Execute(ctx, c, plan, progress)
	}
	res := JobsResult{ByName: map[string]int64{}, Skipped: map[string]int64{}}
	if plan.keys != e.keys {
		return res, fmt.Errorf("%s: plan is for namespace %q, executor for %q", plan.Action, plan.Namespace, e.keys.Prefix())
	}
	if plan.Target.Set == "" {
		err := e.queueDelete(ctx, c, plan, &res, progress)
		return res, err
	}
	p := &callPipe{e: e, c: c, plan: &plan, res: &res, progress: progress, pace: pacer{rate: e.rate}}
	var err error
	switch {
	case !plan.Target.All:
		err = p.run(ctx, plan.Items)
	case plan.everyKept:
		// The plan holds every member it counted, oldest first: take
		// exactly those (each re-checked by its script call), without a
		// second scan, a step of its walk at a time.
		for _, s := range plan.Skipped {
			res.Skipped[s.Reason] += s.N
		}
		for _, items := range plan.kept {
			if err = p.run(ctx, items); err != nil {
				break
			}
		}
	default:
		err = e.rescan(ctx, c, plan, p)
	}
	if werr := p.wait(ctx); err == nil {
		err = werr
	}
	return res, err
}

// rescan takes a bulk plan's members from a new walk of the set, in
// batches, in the set's order.
func (e *JobsExecutor) rescan(ctx context.Context, c redis.Conn, plan JobsPlan, p *callPipe) error {
	s := redisq.NewSetWalk(e.keys, plan.Target.Set, plan.Target.filter(), max(e.batch, BulkScanCount))
	var pending []JobItem
	for !s.Progress().Done {
		// The scan shares the connection: no script call stays in flight.
		if err := p.wait(ctx); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: stopped after %d jobs: %w", plan.Action, p.res.Done, err)
		}
		jobs, err := s.Step(ctx, c)
		if err != nil {
			return fmt.Errorf("%s: %w", plan.Action, err)
		}
		for _, sj := range jobs {
			it, err := plan.item(sj)
			if err != nil {
				p.res.Skipped[skipReason(err)]++
				continue
			}
			pending = append(pending, it)
		}
		if len(pending) >= e.batch || (s.Progress().Done && len(pending) > 0) {
			if err := p.run(ctx, pending); err != nil {
				return err
			}
			pending = nil
		}
	}
	return nil
}

// MaxBatchBytes bounds the member bytes of one script call, so that a
// batch of big jobs holds Redis no longer than a batch of small ones: the
// script reads, removes and pushes each member, in time that grows with its
// bytes. At 32 KB (about 140 dead jobs of a typical size) a requeue call
// holds Redis under a millisecond on average; calls of twice that size
// took no less time in all, and their longest ran past 10 ms.
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

// callPipe runs the script calls of one execution with up to callsAhead
// calls in flight: the arguments of the next call are built, and the call
// sent, while Redis runs the ones before, so Redis does not wait for this
// process between calls. Each call is atomic and re-checks its members, so
// a run killed with calls in flight loses and doubles nothing; their
// outcome is simply not counted. Results and progress count only replies
// read.
type callPipe struct {
	e        *JobsExecutor
	c        redis.Conn
	plan     *JobsPlan
	res      *JobsResult
	progress JobsProgress

	// inFlight are the calls sent and not read yet, oldest first.
	inFlight []sentCall
	pace     pacer
	// bufs hold the arguments of the call being built.
	bufs callBufs

	// clock is Redis's clock for a requeue without a journal (whose reads
	// bring the clock with them).
	clock redisClock
}

// callTime is the `t` of a requeue's next call, Redis's clock in seconds: as
// the journal read it for the call, else the pipe's own reading of it
// (taken once, before the first call, so that nothing waits for it behind
// calls in flight) plus the time passed since. Deletes read no clock.
func (p *callPipe) callTime(ctx context.Context, b before) (int64, error) {
	if p.plan.Action != JobsRequeue {
		return 0, nil
	}
	if b.redisMs != 0 {
		return b.redisMs / 1000, nil
	}
	if !p.clock.read() {
		if err := p.wait(ctx); err != nil {
			return 0, err
		}
		now, err := redisq.Time(ctx, p.c)
		if err != nil {
			return 0, fmt.Errorf("%s: read Redis's clock: %w", p.plan.Action, err)
		}
		p.clock.set(now.UnixMilli())
	}
	return p.clock.nowMs() / 1000, nil
}

// sentCall is a script call sent: its members and when it was sent.
type sentCall struct {
	items []JobItem
	at    time.Time
	seq   int // its journal record
}

// callsAhead is how many script calls an execution keeps in flight.
const callsAhead = 2

// run sends script calls over items, in batches.
func (p *callPipe) run(ctx context.Context, items []JobItem) error {
	for len(items) > 0 {
		n := batchLen(items, p.e.batch)
		batch, seen, err := p.journalRead(ctx, items[:n])
		if err != nil {
			return err
		}
		t, err := p.callTime(ctx, seen)
		if err != nil {
			return err
		}
		cl := p.e.callArgs(p.plan, batch, t, &p.bufs)
		args, sent := cl.args, cl.sent
		for r, k := range cl.skipped {
			p.res.Skipped[r] += k
		}
		// A paced call waits also for the replies of calls in flight that
		// would, with it, pass the rate (a rate below a few jobs a second).
		for len(p.inFlight) >= callsAhead || (len(p.inFlight) > 0 && p.pace.full(len(sent))) {
			if err := p.waitOne(ctx); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			// Stop before a call (a call with a done context would cost the
			// connection), after reading what the calls in flight did.
			werr := p.wait(ctx)
			return fmt.Errorf("%s: stopped after %d jobs: %w", p.plan.Action, p.res.Done, errors.Join(err, werr))
		}
		if len(args) > 0 {
			if err := p.pace.wait(ctx, len(sent)); err != nil {
				werr := p.wait(ctx)
				return fmt.Errorf("%s: stopped after %d jobs: %w", p.plan.Action, p.res.Done, errors.Join(err, werr))
			}
			seq, err := p.journalIntent(cl, seen)
			if err != nil {
				return err
			}
			if err := p.c.Send("EVAL", args...); err != nil {
				return fmt.Errorf("%s %s: %w", p.plan.Action, args[2], err)
			}
			if err := p.c.Flush(); err != nil {
				return fmt.Errorf("%s %s: %w", p.plan.Action, args[2], err)
			}
			p.inFlight = append(p.inFlight, sentCall{items: sent, at: time.Now(), seq: seq})
		}
		items = items[n:]
	}
	return nil
}

// callWait bounds the wait for the reply of a call in flight once the
// caller's context is done: the call runs in Redis whatever happens here,
// and its reply says what it did.
const callWait = 30 * time.Second

// wait reads the replies of every call in flight and records them; the
// first error is returned after all are read.
func (p *callPipe) wait(ctx context.Context) error {
	var first error
	for len(p.inFlight) > 0 {
		if err := p.waitOne(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// waitOne reads the reply of the oldest call in flight and records it. On
// an error it reads the others too, so none stays in flight.
func (p *callPipe) waitOne(ctx context.Context) error {
	call := p.inFlight[0]
	p.inFlight = p.inFlight[1:]
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callWait)
	defer cancel()
	reply, err := redis.ReceiveContext(p.c, rctx)
	took := time.Since(call.at)
	p.pace.done(len(call.items))
	p.res.Calls++
	p.res.Longest = max(p.res.Longest, took)
	setKey := redisq.SetKey(p.e.keys, p.plan.Target.Set)
	if err == nil {
		err = p.e.record(*p.plan, call.items, reply, p.res)
	} else {
		err = fmt.Errorf("%s %s: %w", p.plan.Action, setKey, err)
	}
	if jerr := p.journalCommit(call.seq, reply, err); err == nil {
		err = jerr
	}
	if err != nil {
		_ = p.wait(ctx)
		return err
	}
	if p.progress != nil {
		p.progress(p.res.Done, p.plan.Total)
	}
	return nil
}

// callBufs are the buffers of the script calls of one execution, each
// call built in those of the call before: a call's arguments are copied
// out when it is sent, and its edits once the journal wrote them, so the
// next call can take their place. Built afresh, they were most of the
// bytes an execution allocated (a fresh page of memory for every 4 KB, as
// the collector could not keep up).
type callBufs struct {
	args     []any
	jobBytes []byte
	jobs     [][]byte
	edits    []model.RequeueEdit
	at       []int
}

// call is one script call built: EVAL's arguments (the script's source,
// the key count, the keys, then the members' arguments as the script
// takes them), the members it
// takes and, for a requeue, each one's edit (the journal records the same
// bytes), and the members left out by reason. No args: none is left.
type call struct {
	args    []any
	sent    []JobItem
	edits   []model.RequeueEdit
	skipped map[string]int64
}

// callArgs builds the call over items; a requeue's new jobs carry t. A
// member whose requeue cannot be cut is left out and counted by reason.
//
// The arguments go in one slice, sized once and sent as it is (what
// redis.Script.Send sends, EVAL with the source, without its copy of
// them): built in a slice of their own, then copied behind the keys and
// again by Send, they were a fifth of the bytes a bulk requeue's
// execution allocated.
func (e *JobsExecutor) callArgs(plan *JobsPlan, items []JobItem, t int64, bufs *callBufs) call {
	if bufs == nil {
		bufs = &callBufs{}
	}
	setKey := redisq.SetKey(e.keys, plan.Target.Set)
	// keys are the call's keys after the set, in the order of their
	// first member; KEYS is 1-based and KEYS[1] is the set.
	// A requeue's members name a few queues, looked up in place; a
	// delete's unique keys can be one a member, looked up in a map.
	var keys []string
	var keyIndex map[string]int
	index := func(k string) int {
		if keyIndex != nil {
			if i, ok := keyIndex[k]; ok {
				return i
			}
		} else {
			for i, have := range keys {
				if have == k {
					return i + 2
				}
			}
		}
		keys = append(keys, k)
		if keyIndex == nil && len(keys) > 8 {
			keyIndex = make(map[string]int, len(items))
			for i, have := range keys {
				keyIndex[have] = i + 2
			}
		} else if keyIndex != nil {
			keyIndex[k] = len(keys) + 1
		}
		return len(keys) + 1
	}
	var skipped map[string]int64
	var edits []model.RequeueEdit
	var jobs [][]byte // the new jobs of a requeue, each Before, t, After
	sent := items
	src := luaJobsDelete
	if plan.Action == JobsRequeue {
		src = luaJobsRequeue
		tText := strconv.FormatInt(t, 10)
		// The new jobs in one buffer: each at most its stored bytes,
		// `,"t":` and t.
		size := 0
		for _, it := range items {
			size += len(it.Job.Raw) + len(`,"t":`) + len(tText)
		}
		buf := slices.Grow(bufs.jobBytes[:0], size)
		edits = slices.Grow(bufs.edits[:0], len(items))
		jobs = slices.Grow(bufs.jobs[:0], len(items))
		for i, it := range items {
			// Dead jobs lose their failure fields; every other byte stays.
			from := len(buf)
			var edit model.RequeueEdit
			var err error
			buf, edit, err = model.AppendRequeued(buf, it.Job.Raw, it.Job.Set == model.SetDead, tText)
			if err != nil {
				if skipped == nil {
					skipped = map[string]int64{}
					sent = append([]JobItem(nil), items[:i]...)
				}
				skipped[skipReason(fmt.Errorf("%w: %w", ErrNotRequeueable, err))]++
				continue
			}
			if skipped != nil {
				sent = append(sent, it)
			}
			edits = append(edits, edit)
			jobs = append(jobs, buf[from:len(buf):len(buf)])
		}
		bufs.jobBytes, bufs.edits, bufs.jobs = buf, edits, jobs
	}
	if len(sent) == 0 {
		return call{skipped: skipped}
	}
	// Each member's key index, known before the keys are written.
	at := slices.Grow(bufs.at[:0], len(sent))[:len(sent)]
	bufs.at = at
	for i, it := range sent {
		switch {
		case plan.Action == JobsRequeue:
			at[i] = index(it.QueueKey)
		case it.UniqueKey != "":
			at[i] = index(it.UniqueKey)
		}
	}
	clear(bufs.args) // what the last call's arguments held
	args := slices.Grow(bufs.args[:0], 4+len(keys)+5*len(sent))
	defer func() { bufs.args = args }()
	args = append(args, src, 1+len(keys), setKey)
	for _, k := range keys {
		args = append(args, k)
	}
	if plan.Action == JobsRequeue {
		// t, then the members, their scores, the new jobs and their
		// queues, each kind together (see jobs_requeue.lua).
		args = append(args, t)
		for _, it := range sent {
			args = append(args, it.Job.Raw)
		}
		for _, it := range sent {
			args = append(args, it.Job.ScoreText)
		}
		for _, j := range jobs {
			args = append(args, j)
		}
		for _, k := range at {
			args = append(args, k)
		}
		return call{args: args, sent: sent, edits: edits, skipped: skipped}
	}
	for i, it := range sent {
		id := ""
		if it.Job.Job != nil {
			id = it.Job.Job.ID
		}
		args = append(args, it.Job.Raw, it.Job.ScoreText, at[i], string([]byte{max(it.UniqueMode, '-')}), id)
	}
	return call{args: args, sent: sent, edits: edits, skipped: skipped}
}

// record reads one call's reply: a code per member the call took.
func (e *JobsExecutor) record(plan JobsPlan, items []JobItem, reply any, res *JobsResult) error {
	setKey := redisq.SetKey(e.keys, plan.Target.Set)
	vals, err := redis.Values(reply, nil)
	if err != nil {
		return fmt.Errorf("%s %s: %w", plan.Action, setKey, err)
	}
	var status, codes string
	if _, err := redis.Scan(vals, &status, &codes); err != nil {
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
			if name, ok := it.jobName(); ok {
				res.ByName[name]++
			}
			if code == 'u' {
				res.UniqueDeleted++
			}
		case 'g':
			res.GoneCount++
			if len(res.Gone) < ReportLimit {
				res.Gone = append(res.Gone, it.reported())
			}
		case 's':
			res.RescoredCount++
			if len(res.Rescored) < ReportLimit {
				res.Rescored = append(res.Rescored, it.reported())
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
		seq, err := e.journalQueueIntent(ctx, it)
		if err != nil {
			return err
		}
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
		if err := e.journalQueueCommit(seq, removed, unique); err != nil {
			return err
		}
		if removed == 0 {
			res.GoneCount++
			if len(res.Gone) < ReportLimit {
				res.Gone = append(res.Gone, it.reported())
			}
			continue
		}
		res.Done++
		res.UniqueDeleted += unique
		if name, ok := it.jobName(); ok {
			res.ByName[name]++
		}
		if progress != nil {
			progress(res.Done, plan.Total)
		}
	}
	return nil
}
