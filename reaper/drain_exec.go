package reaper

// This file carries out drain plans (drain.go) with lua/queue_drain.lua:
// jobs go in batches, each job taken by one atomic script call that finds
// its exact bytes near the place the plan saw, so a run killed at any point
// loses and doubles nothing, and planning and running it again takes the
// rest. Before each call what it will change goes to the journal, and
// after it where each job was and the job ahead of it (undo_drain.go puts
// them back there).

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/redisq"
)

//go:embed lua/queue_drain.lua
var luaQueueDrain string

// DrainResult is what a drain did.
type DrainResult struct {
	// Done jobs were deleted or parked; UniqueDeleted unique keys deleted
	// with them; Gone jobs had left the queue since the plan (a worker
	// took them) and were left alone; Skipped could not be parked (not a
	// JSON object).
	Done, UniqueDeleted, Gone, Skipped int64
	Calls                              int
	Longest                            time.Duration
	// Journal is the ID of the journal the screen's drain wrote ("" for
	// none).
	Journal string
}

// DrainExecutor runs drain plans on one namespace.
type DrainExecutor struct {
	keys    redisq.Keys
	batch   int
	rate    int
	script  *redis.Script
	journal JournalWriter
}

// NewDrainExecutor returns an executor taking at most batch jobs per script
// call (DefaultBatch when below 1).
func NewDrainExecutor(namespace string, batch int) *DrainExecutor {
	if batch < 1 {
		batch = DefaultBatch
	}
	return &DrainExecutor{keys: redisq.NewKeys(namespace), batch: batch, script: redis.NewScript(-1, luaQueueDrain)}
}

// SetRate makes the executor take at most n jobs a second (no bound when n
// is below 1), a tenth of n at most per call, as the set actions do.
func (e *DrainExecutor) SetRate(n int) {
	e.rate = max(n, 0)
	if n > 0 {
		e.batch = min(e.batch, max(1, n/10))
	}
}

// WithJournal journals every call to w (nil: none).
func (e *DrainExecutor) WithJournal(w JournalWriter) *DrainExecutor {
	e.journal = w
	return e
}

// drainCall is one script call built.
type drainCall struct {
	items []DrainItem
	dead  [][]byte // parked bytes, a park only
	at    int64
	args  []any
}

// Execute carries out a plan, one call at a time, in run order. A
// cancelled ctx stops before the next call: what was done stays done.
func (e *DrainExecutor) Execute(ctx context.Context, c redis.Conn, plan DrainPlan, progress JobsProgress) (DrainResult, error) {
	var res DrainResult
	if plan.keys != e.keys {
		return res, fmt.Errorf("%s: plan is for namespace %q, executor for %q", plan.Action, plan.Namespace, e.keys.Prefix())
	}
	pace := pacer{rate: e.rate}
	var taken, shift int64
	items := plan.Items
	total := int64(len(items))
	for len(items) > 0 {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("%s: stopped after %d jobs: %w", plan.Action, res.Done, err)
		}
		n := drainBatchLen(items, e.batch, plan.Length-taken)
		cl, err := e.build(&plan, items[:n], taken, shift, &res)
		items = items[n:]
		if err != nil {
			return res, err
		}
		if len(cl.items) == 0 {
			continue
		}
		if err := pace.wait(ctx, len(cl.items)); err != nil {
			return res, fmt.Errorf("%s: stopped after %d jobs: %w", plan.Action, res.Done, err)
		}
		seq, err := e.intent(ctx, c, &plan, cl)
		if err != nil {
			return res, err
		}
		start := time.Now()
		reply, err := redis.Values(e.script.DoContext(ctx, c, cl.args...))
		took := time.Since(start)
		pace.done(len(cl.items))
		res.Calls++
		res.Longest = max(res.Longest, took)
		if err != nil {
			_ = e.commit(seq, journal.Commit{Error: err.Error()}) // the call's error is the one to report
			return res, fmt.Errorf("%s from %s: %w", plan.Action, plan.Queue, err)
		}
		got, cm, err := readDrainReply(reply, len(cl.items))
		if err != nil {
			_ = e.commit(seq, journal.Commit{Error: err.Error()}) // the call's error is the one to report
			return res, fmt.Errorf("%s from %s: %w", plan.Action, plan.Queue, err)
		}
		if err := e.commit(seq, cm); err != nil {
			return res, err
		}
		shift = got.shift
		for _, code := range []byte(cm.Codes) {
			switch code {
			case 'd', 'u':
				res.Done++
				taken++
				if code == 'u' {
					res.UniqueDeleted++
				}
			default:
				res.Gone++
			}
		}
		if progress != nil {
			progress(res.Done, total)
		}
	}
	return res, nil
}

// drainBatchLen is how many of items the next call takes: at most limit,
// and at most MaxBatchBytes of jobs (at least one), times drainScale of
// how deep in the queue (of about length jobs) the first of them is.
func drainBatchLen(items []DrainItem, limit int, length int64) int {
	if len(items) == 0 {
		return 0
	}
	pos := items[0].Position
	capBytes := MaxBatchBytes * drainScale(min(pos, length-pos))
	size := 0
	for i, it := range items {
		if i == limit {
			return i
		}
		size += len(it.Raw)
		if i > 0 && size > capBytes {
			return i
		}
	}
	return len(items)
}

// A call ends with one LREM that walks from the nearer end of the queue
// to the call's last job, about 30 ns a job passed: at a depth of 500,000
// that walk alone takes as long as taking some 600 jobs. Deep in a long
// queue a call therefore takes more jobs, so that the walks stay a small
// part of the run, up to drainMaxScale times the bytes of a call near an
// end (a call then takes about as long as one at the far end of a queue
// of a million did before).
const (
	drainDepthUnit = 100_000
	drainMaxScale  = 4
)

// drainScale is how many times MaxBatchBytes a call whose first job is
// depth jobs from the nearer end of its queue may carry.
func drainScale(depth int64) int {
	return int(min(max(depth/drainDepthUnit, 1), drainMaxScale))
}

// build makes one call's arguments. taken jobs are gone from ahead of these
// since the plan; shift is the last call's guess of those workers took.
func (e *DrainExecutor) build(plan *DrainPlan, items []DrainItem, taken, shift int64, res *DrainResult) (drainCall, error) {
	cl := drainCall{at: plan.now()}
	tomb := make([]byte, 24)
	copy(tomb, "\x00workq-tomb:")
	if _, err := rand.Read(tomb[12:]); err != nil {
		return cl, fmt.Errorf("%s: %w", plan.Action, err)
	}
	dead := redisq.SetKey(e.keys, "dead")
	keys := []any{plan.Queue, dead}
	index := map[string]int{}
	mode := "d"
	if plan.Action == DrainPark {
		mode = "p"
	}
	var argv []any
	for _, it := range items {
		var parked []byte
		if plan.Action == DrainPark {
			b, err := parkedBytes(it.Raw, cl.at)
			if err != nil {
				res.Skipped++
				continue
			}
			parked = b
		}
		u := 0
		if it.UniqueKey != "" {
			if u = index[it.UniqueKey]; u == 0 {
				keys = append(keys, it.UniqueKey)
				u = len(keys)
				index[it.UniqueKey] = u
			}
		}
		bound := max(it.Position-taken, 0)
		argv = append(argv, it.Raw, bound, u, nilEmpty(parked), strconv.FormatInt(cl.at, 10))
		cl.items = append(cl.items, it)
		cl.dead = append(cl.dead, parked)
	}
	args := make([]any, 0, 4+len(keys)+len(argv))
	args = append(args, len(keys))
	args = append(args, keys...)
	args = append(args, tomb, mode, shift)
	args = append(args, argv...)
	cl.args = args
	return cl, nil
}

func nilEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// drainReply is what one call reported.
type drainReply struct {
	shift int64
}

// readDrainReply reads a call's reply into its journal commit: the codes,
// each job's position (Counts) and the job ahead of it (Aheads).
func readDrainReply(reply []any, n int) (drainReply, journal.Commit, error) {
	var out drainReply
	var cm journal.Commit
	if len(reply) < 2 {
		return out, cm, fmt.Errorf("unexpected script reply %v", reply)
	}
	status, _ := redis.String(reply[0], nil)
	if status == "wrongtype" {
		key, _ := redis.String(reply[1], nil)
		return out, cm, fmt.Errorf("%s: %w", key, ErrWrongType)
	}
	codes, _ := redis.String(reply[1], nil)
	if status != "ok" || len(codes) != n || len(reply) != 3+2*n {
		return out, cm, fmt.Errorf("unexpected script reply %q", status)
	}
	shift, err := redis.Int64(reply[2], nil)
	if err != nil {
		return out, cm, fmt.Errorf("unexpected script reply: %w", err)
	}
	out.shift = shift
	cm.Codes = codes
	cm.Counts = make([]int64, n)
	cm.Aheads = make([][]byte, n)
	for i := 0; i < n; i++ {
		cm.Counts[i], _ = redis.Int64(reply[3+2*i], nil)
		cm.Aheads[i], _ = redis.Bytes(reply[4+2*i], nil)
	}
	return out, cm, nil
}

// intent journals what cl will change, reading Redis's clock and the
// unique keys before (0 without a journal).
func (e *DrainExecutor) intent(ctx context.Context, c redis.Conn, plan *DrainPlan, cl drainCall) (int, error) {
	if e.journal == nil {
		return 0, nil
	}
	fail := func(err error) (int, error) {
		return 0, fmt.Errorf("%s: nothing more sent: journal: %w", plan.Action, err)
	}
	if err := c.Send("TIME"); err != nil {
		return fail(err)
	}
	var uniques []string
	seen := map[string]bool{}
	for _, it := range cl.items {
		if it.UniqueKey != "" && !seen[it.UniqueKey] {
			seen[it.UniqueKey] = true
			uniques = append(uniques, it.UniqueKey)
			if err := c.Send("GET", it.UniqueKey); err != nil {
				return fail(err)
			}
			if err := c.Send("PTTL", it.UniqueKey); err != nil {
				return fail(err)
			}
		}
	}
	if err := c.Flush(); err != nil {
		return fail(err)
	}
	tv, err := redis.Int64s(redis.ReceiveContext(c, ctx))
	if err != nil || len(tv) != 2 {
		return fail(errOr(err, errors.New("bad reply to TIME")))
	}
	keys := map[string]*journal.Key{}
	for _, name := range uniques {
		k := &journal.Key{Name: name, Mode: "a"}
		v, gerr := redis.Bytes(redis.ReceiveContext(c, ctx))
		ttl, terr := redis.Int64(redis.ReceiveContext(c, ctx))
		if terr != nil {
			return fail(terr)
		}
		var re redis.Error
		switch {
		case errors.Is(gerr, redis.ErrNil):
		case errors.As(gerr, &re):
			k.Exists = true // not a string: never put back
		case gerr != nil:
			return fail(gerr)
		default:
			k.Exists, k.Value, k.PTTL = true, v, ttl
		}
		keys[name] = k
	}
	in := journal.Intent{RedisMs: tv[0]*1000 + tv[1]/1000, Items: make([]journal.Item, len(cl.items))}
	for i, it := range cl.items {
		item := journal.Item{Queue: plan.Queue, Old: it.Raw, Position: it.Position}
		if plan.Action == DrainPark {
			item.Set = redisq.SetKey(e.keys, "dead")
			item.Score = strconv.FormatInt(cl.at, 10)
			item.New = cl.dead[i]
		}
		if it.UniqueKey != "" {
			item.Unique = keys[it.UniqueKey]
		}
		in.Items[i] = item
	}
	seq, err := e.journal.Intent(in)
	if err != nil {
		return fail(err)
	}
	return seq, nil
}

// commit journals a call's reply (nothing without a journal).
func (e *DrainExecutor) commit(seq int, cm journal.Commit) error {
	if e.journal == nil || seq == 0 {
		return nil
	}
	if err := e.journal.Commit(seq, cm); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}
