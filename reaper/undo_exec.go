package reaper

// This file carries out undo plans (undo.go) with the scripts in
// lua/undo_*.lua: every item is put back by one atomic script call that
// first checks it is still where the action left it; an item that moved on
// is counted and left alone. Each call is journalled like any write, so a
// killed undo is finished by running it again: what it put back is found
// back already, and left alone.

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

//go:embed lua/undo_requeue.lua
var luaUndoRequeue string

//go:embed lua/undo_delete.lua
var luaUndoDelete string

//go:embed lua/undo_queue.lua
var luaUndoQueue string

//go:embed lua/undo_pause.lua
var luaUndoPause string

// UndoResult is what an undo did.
type UndoResult struct {
	// Restored items were put back; Already were found back already (an
	// undo run before, or never changed by a call that was cut short).
	Restored, Already int64
	// MovedOn items were not where the action left them and were left
	// alone; at most ReportLimit are listed.
	MovedOn      int64
	MovedOnItems []journal.Item
	// UniqueRestored counts unique keys put back; UniqueExpired those whose
	// time to live ran out since; UniqueHeld those held by a newer copy.
	UniqueRestored, UniqueExpired, UniqueHeld int64
	// PauseExpired counts pauses not put back: they would have expired.
	PauseExpired int64
	Calls        int
}

// UndoProgress is called after each script call with the items done and
// the total.
type UndoProgress func(done, total int64)

// Undoer runs undo plans.
type Undoer struct {
	batch                          int
	requeue, del, queue, pauseUndo *redis.Script
	throttleUndo, editUndo         *redis.Script
}

// NewUndoer returns an undoer putting back at most batch items per script
// call (DefaultBatch when below 1).
func NewUndoer(batch int) *Undoer {
	if batch < 1 {
		batch = DefaultBatch
	}
	return &Undoer{
		batch:        batch,
		requeue:      redis.NewScript(-1, luaUndoRequeue),
		del:          redis.NewScript(-1, luaUndoDelete),
		queue:        redis.NewScript(-1, luaUndoQueue),
		pauseUndo:    redis.NewScript(-1, luaUndoPause),
		throttleUndo: redis.NewScript(-1, luaUndoThrottle),
		editUndo:     redis.NewScript(-1, luaUndoEdit),
	}
}

// Execute puts back what plan lists, journalling every call to w.
func (u *Undoer) Execute(ctx context.Context, c redis.Conn, plan UndoPlan, w JournalWriter, progress UndoProgress) (UndoResult, error) {
	if isDrainOp(plan.Op) {
		return u.executeDrain(ctx, c, plan, w, progress)
	}
	// What the plan found already back or moved on is part of the result:
	// the result says what became of every item of the action.
	res := UndoResult{Already: plan.Already, MovedOn: plan.MovedOn,
		MovedOnItems: append([]journal.Item(nil), plan.MovedOnItems...)}
	items := plan.Items
	total := int64(len(items))
	done := int64(0)
	for len(items) > 0 {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("undo: stopped after %d of %d items: %w", done, total, err)
		}
		n := u.batchOf(plan.Op, items)
		call := items[:n]
		script, args, in := u.callArgs(plan, call)
		codes, err := undoCall(ctx, c, w, script, args, in, plan.Of.Header.ID, n, &res)
		if err != nil {
			return res, err
		}
		for i := range call {
			res.count(codes[i], call[i].Item)
		}
		done += int64(n)
		if progress != nil {
			// Progress counts what was put back, not what was visited: an
			// item that moved on since the plan was read is not progress.
			progress(res.Restored, total)
		}
		items = items[n:]
	}
	return res, nil
}

// count adds one item's outcome.
func (r *UndoResult) count(code byte, it journal.Item) {
	switch code {
	case 'r':
		r.Restored++
	case 'u':
		r.Restored++
		r.UniqueRestored++
	case 'e':
		r.Restored++
		if it.Key != nil {
			r.Restored--
			r.PauseExpired++
		} else {
			r.UniqueExpired++
		}
	case 'k':
		r.Restored++
		r.UniqueHeld++
	case 'b':
		r.Already++
	default: // 'm'
		r.MovedOn++
		if len(r.MovedOnItems) < ReportLimit {
			r.MovedOnItems = append(r.MovedOnItems, it)
		}
	}
}

// batchOf is how many of items the next call takes: one set or queue (or
// all pause keys) per call, at most batch items and MaxBatchBytes of bytes.
func (u *Undoer) batchOf(op string, items []UndoItem) int {
	switch op {
	case journal.OpQueueDelete, journal.OpRemoveLeaked, journal.OpEdit, journal.OpDuplicate:
		return 1
	case journal.OpPause, journal.OpUnpause, journal.OpThrottle, journal.OpDeleteUnique:
		return len(items)
	}
	size := 0
	for i, it := range items {
		if i == u.batch || it.Item.Set != items[0].Item.Set {
			return i
		}
		size += len(it.Item.Old) + len(it.Item.New)
		if i > 0 && size > MaxBatchBytes {
			return i
		}
	}
	return len(items)
}

// callArgs builds one call's script, arguments and journal intent.
func (u *Undoer) callArgs(plan UndoPlan, call []UndoItem) (*redis.Script, []any, journal.Intent) {
	in := journal.Intent{Items: make([]journal.Item, len(call))}
	for i, it := range call {
		in.Items[i] = it.Item
		in.Items[i].Undo = plan.Op
	}
	redisMs := func(it UndoItem, k *journal.Key) int64 {
		if k == nil || k.PTTL <= 0 {
			return 0
		}
		return it.RedisMs + k.PTTL
	}
	var keys, argv []any
	var script *redis.Script
	switch plan.Op {
	case journal.OpRequeue:
		script = u.requeue
		keys = []any{call[0].Item.Set}
		index := map[string]int{}
		for _, it := range call {
			q, ok := index[it.Item.Queue]
			if !ok {
				keys = append(keys, it.Item.Queue)
				q = len(keys)
				index[it.Item.Queue] = q
			}
			pushed := it.Item.New
			if pushed == nil {
				pushed = []byte{}
			}
			argv = append(argv, pushed, it.Item.Old, it.Item.Score, q)
		}
	case journal.OpDelete:
		script = u.del
		keys = []any{call[0].Item.Set}
		for i, it := range call {
			uk, val, deadline := 0, []byte{}, int64(0)
			if k := it.Item.Unique; k != nil {
				keys = append(keys, k.Name)
				uk, val, deadline = len(keys), k.Value, redisMs(it, k)
				in.Items[i].Deadline = deadline
			}
			argv = append(argv, it.Item.Old, it.Item.Score, uk, val, deadline)
		}
	case journal.OpQueueDelete, journal.OpRemoveLeaked:
		script = u.queue
		it := call[0]
		keys = []any{it.Item.Queue}
		val, deadline := []byte{}, int64(0)
		if k := it.Item.Unique; k != nil {
			keys = append(keys, k.Name)
			val, deadline = k.Value, redisMs(it, k)
			in.Items[0].Deadline = deadline
		}
		argv = []any{it.Item.Old, max(it.Item.Count, 1), val, deadline}
	case journal.OpThrottle:
		script = u.throttleUndo
		keys, argv = throttleUndoArgs(call)
	case journal.OpEdit, journal.OpDuplicate:
		script = u.editUndo
		keys, argv = editUndoArgs(plan.Op, call[0])
	default: // pause, unpause
		script = u.pauseUndo
		op := "lift"
		if plan.Op == journal.OpUnpause || plan.Op == journal.OpDeleteUnique {
			op = "restore" // set again only while absent
		}
		for i, it := range call {
			keys = append(keys, it.Item.Key.Name)
			deadline := redisMs(it, it.Item.Key)
			in.Items[i].Deadline = deadline
			argv = append(argv, op, it.Item.Key.Value, deadline)
		}
	}
	args := make([]any, 0, 1+len(keys)+len(argv))
	args = append(args, len(keys))
	args = append(args, keys...)
	for _, a := range argv {
		if b, ok := a.([]byte); ok && b == nil {
			a = []byte{}
		}
		args = append(args, a)
	}
	return script, args, in
}

// DescribeUndoItem names an item for the operator as a plan names a job:
// its id, job name and time (the set's score as a time) or its bytes cut
// short when they are not a job; where it was and where it went; its
// unique or pause key as it was before. The line is bounded: every part
// read from Redis is cut short.
func DescribeUndoItem(it journal.Item) string {
	var b strings.Builder
	if it.Key != nil {
		b.WriteString(textsafe.Clean(truncateBytes([]byte(it.Key.Name), 60)))
		b.WriteString(describeKey(*it.Key))
		return b.String()
	}
	b.WriteString(describeJobBytes(it.Set, it.Old, it.Score))
	switch {
	case it.Set != "" && it.Queue != "":
		b.WriteString("  " + shortKey(it.Set) + " -> " + shortKey(it.Queue))
	case it.Set != "":
		b.WriteString("  in " + shortKey(it.Set))
	default:
		b.WriteString("  in " + shortKey(it.Queue))
	}
	if it.Count > 1 {
		fmt.Fprintf(&b, " (%d copies)", it.Count)
	}
	if u := it.Unique; u != nil {
		b.WriteString(", unique key" + describeKey(*u))
	}
	return b.String()
}

// describeJobBytes is a job as the plans of requeue and delete name it
// (id, job name, time); raw bytes, cut short, when they are not a job.
func describeJobBytes(set string, raw []byte, score string) string {
	name := model.SetName("")
	if i := strings.LastIndexByte(set, ':'); i >= 0 {
		if n, err := model.ParseSetName(set[i+1:]); err == nil {
			name = n
		}
	}
	sj := model.ParseSetJob(name, raw, score)
	if score == "" && sj.Job != nil {
		return textsafe.Clean(truncateBytes([]byte(sj.Job.ID), 40)) + "  " + textsafe.Clean(truncateBytes([]byte(sj.Job.Name), 40))
	}
	if score == "" {
		return "raw " + textsafe.Clean(truncateBytes(raw, 60))
	}
	if sj.Job != nil {
		sj.Job.ID = truncateBytes([]byte(sj.Job.ID), 40)
		sj.Job.Name = truncateBytes([]byte(sj.Job.Name), 40)
	}
	return describeItem(JobItem{Job: sj})
}

// shortKey is a key name cut short for a plan's line.
func shortKey(k string) string {
	return textsafe.Clean(truncateBytes([]byte(k), 40))
}

// describeKey is a key's state before: absent, or its value and TTL.
func describeKey(k journal.Key) string {
	switch {
	case !k.Exists:
		return " (absent before)"
	case k.Value == nil && k.PTTL == 0:
		return " (not a string)"
	case k.PTTL > 0:
		return fmt.Sprintf(" (was %s, %s to live)", textsafe.Clean(strconv.Quote(truncateBytes(k.Value, 24))), time.Duration(k.PTTL)*time.Millisecond)
	}
	return fmt.Sprintf(" (was %s, no expiry)", textsafe.Clean(strconv.Quote(truncateBytes(k.Value, 24))))
}

// undoCall journals one call's intent, sends the call and journals its
// codes (or its error): one code per item, n of them. It counts the call
// in res. A call once sent is waited for even when ctx is cancelled
// (within callWait), so that what it put back is counted: an undo stopped
// by Ctrl-C stops between calls and reports exactly what it did.
func undoCall(ctx context.Context, c redis.Conn, w JournalWriter, script *redis.Script, args []any, in journal.Intent, id string, n int, res *UndoResult) (string, error) {
	seq, err := w.Intent(in)
	if err != nil {
		return "", fmt.Errorf("undo: nothing more sent: %w", err)
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callWait)
	defer cancel()
	reply, err := redis.Values(script.DoContext(cctx, c, args...))
	res.Calls++
	if err != nil {
		_ = w.Commit(seq, journal.Commit{Error: err.Error()})
		return "", fmt.Errorf("undo %s: %w", id, err)
	}
	var status, codes string
	if _, err := redis.Scan(reply, &status, &codes); err != nil {
		return "", fmt.Errorf("undo: unexpected script reply: %w", err)
	}
	if status == "wrongtype" {
		return "", fmt.Errorf("undo: %s: %w", codes, ErrWrongType)
	}
	if status != "ok" || len(codes) != n {
		return "", fmt.Errorf("undo: unexpected script reply %q %q", status, codes)
	}
	if err := w.Commit(seq, journal.Commit{Codes: codes}); err != nil {
		return "", fmt.Errorf("undo: journal: %w", err)
	}
	return codes, nil
}
