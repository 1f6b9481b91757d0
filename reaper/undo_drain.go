package reaper

// This file owns the undo of a drain (drain.go): every job a query took out
// of a queue goes back just behind the job that was ahead of it while that
// job is still queued, else at the queue's head (the queue has moved past
// its place: it runs next); a parked job leaves the dead set, unless it
// left it already (requeued or deleted since). lua/undo_drain.lua does it,
// a few jobs per call, the last taken first.

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
)

//go:embed lua/undo_drain.lua
var luaUndoDrain string

func isDrainOp(op string) bool { return op == journal.OpQueueDrain || op == journal.OpQueuePark }

// planUndoDrain lists what a drain took, in run order, and reads the
// length of its queue. A job of a call whose reply was never read has no
// job ahead recorded: if its call ran, it goes back at the head.
func planUndoDrain(ctx context.Context, c redis.Conn, p UndoPlan, a *journal.Action) (UndoPlan, error) {
	for _, call := range a.Calls {
		committed := call.Commit != nil && call.Commit.Error == ""
		for i, it := range call.Intent.Items {
			ui := UndoItem{Item: it, Maybe: !committed, RedisMs: call.Intent.RedisMs}
			code := byte('?')
			if committed && i < len(call.Commit.Codes) {
				code = call.Commit.Codes[i]
			}
			if committed && code != 'd' && code != 'u' {
				p.NotChanged++
				continue
			}
			if committed && i < len(call.Commit.Counts) && i < len(call.Commit.Aheads) {
				ui.Item.Position = call.Commit.Counts[i]
				ui.Item.Ahead = call.Commit.Aheads[i]
			}
			if !restoreUnique(it, committed, code == 'u') {
				ui.Item.Unique = nil
			}
			if ui.Maybe {
				p.Maybe++
			}
			p.Items = append(p.Items, ui)
		}
	}
	if len(p.Items) > 0 {
		n, err := redis.Int64(redis.DoContext(c, ctx, "LLEN", p.Items[0].Item.Queue))
		if err != nil {
			return p, fmt.Errorf("plan the undo: read the queue's length: %w", err)
		}
		p.QueueLength = n
	}
	return p, nil
}

// executeDrain puts back a drain's jobs, the last taken first, so that
// jobs that were side by side go back in their order.
func (u *Undoer) executeDrain(ctx context.Context, c redis.Conn, plan UndoPlan, w JournalWriter, progress UndoProgress) (UndoResult, error) {
	var res UndoResult
	script := redis.NewScript(-1, luaUndoDrain)
	items := make([]UndoItem, len(plan.Items))
	for i, it := range plan.Items {
		items[len(items)-1-i] = it
	}
	total := int64(len(items))
	var done int64
	length := plan.QueueLength
	for len(items) > 0 {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("undo: stopped after %d of %d items: %w", done, total, err)
		}
		n := u.drainBatchOf(items, length)
		call := items[:n]
		args, in := drainUndoArgs(plan, call, int64(len(items)))
		codes, err := undoCall(ctx, c, w, script, args, in, plan.Of.Header.ID, n, &res)
		if err != nil {
			return res, err
		}
		for i := range call {
			res.count(codes[i], call[i].Item)
		}
		done += int64(n)
		length += int64(n)
		if progress != nil {
			// What was put back, as the other undos count: a job that left
			// the dead set since the park is not progress.
			progress(res.Restored, total)
		}
		items = items[n:]
	}
	return res, nil
}

// drainBatchOf is how many items the next call takes from a queue of about
// length jobs: at most drainUndoBatch (and batch), MaxBatchBytes of bytes,
// and drainUndoWalk of walk. Each item costs Redis a walk of the queue from
// its head to the job ahead of it (LINSERT looks for it from there): about
// length-Position jobs, some 30 ns each, so on a queue of a million an item
// near its front costs 30 ms, and such items go one per call, so that no
// call holds Redis much longer than that.
func (u *Undoer) drainBatchOf(items []UndoItem, length int64) int {
	size, walk := 0, int64(0)
	for i, it := range items {
		if i == u.batch || i == drainUndoBatch {
			return i
		}
		size += len(it.Item.Old) + len(it.Item.New) + len(it.Item.Ahead)
		walk += max(length-it.Item.Position, 0)
		if i > 0 && (size > MaxBatchBytes || walk > drainUndoWalk) {
			return i
		}
	}
	return len(items)
}

// drainUndoBatch is the most items of one call of a drain's undo;
// drainUndoWalk the most jobs its LINSERTs walk together (the first item
// of a call is never held back).
const (
	drainUndoBatch = 16
	drainUndoWalk  = 1_000_000
)

// drainUndoArgs builds one call. A job queued already is looked for no
// further from the head than where it would be if every job not put back
// yet by this run (ahead: this call's and those after it, which were ahead
// of it in the line) were back already.
func drainUndoArgs(plan UndoPlan, call []UndoItem, ahead int64) ([]any, journal.Intent) {
	in := journal.Intent{Items: make([]journal.Item, len(call))}
	first := call[0].Item
	dead := first.Set
	if dead == "" {
		dead = first.Queue // never read: a delete's undo writes no set
	}
	keys := []any{first.Queue, dead}
	var argv []any
	for i, it := range call {
		in.Items[i] = it.Item
		in.Items[i].Undo = plan.Op
		uk, val, deadline := 0, []byte{}, int64(0)
		if k := it.Item.Unique; k != nil {
			keys = append(keys, k.Name)
			uk, val = len(keys), nilEmpty(k.Value)
			if k.PTTL > 0 {
				deadline = it.RedisMs + k.PTTL
			}
			in.Items[i].Deadline = deadline
		}
		argv = append(argv, it.Item.Old, nilEmpty(it.Item.New), nilEmpty(it.Item.Ahead), uk, val, deadline, it.Item.Position+ahead+1)
	}
	args := make([]any, 0, 1+len(keys)+len(argv))
	args = append(args, len(keys))
	args = append(args, keys...)
	return append(args, argv...), in
}
