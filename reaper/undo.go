package reaper

// This file owns the plan of an undo: from an action's journal, what each
// item needs to be put back. Items of a call whose reply was never read
// (the action was killed with it in flight) may or may not have been
// changed: their put-back re-checks each in its script like every other,
// and the bytes a requeue pushed, which hold Redis's clock as the script
// read it, are looked for in the queue.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/redisq"
)

// ErrUndoRefused: the action cannot be undone; the error says why.
var ErrUndoRefused = errors.New("cannot be undone")

// UndoPlan is what an undo will put back.
type UndoPlan struct {
	Of *journal.Action
	// Op is the undone action's Op.
	Op    string
	Items []UndoItem
	// NotChanged counts members the action read but left alone (gone or
	// rescored when its call ran): nothing to put back.
	NotChanged int64
	// Maybe counts items of calls whose reply was never read: put back if
	// the action changed them, left alone if not.
	Maybe int64
	// NotFound counts requeued jobs of such calls that are not in their
	// queue: left alone (taken by a worker, or never pushed).
	NotFound int64
	// Already counts items found back where they were before the action
	// (an undo ran before); MovedOn those found neither there nor where
	// the action left them (a requeued job a worker took): both left
	// alone, at most ReportLimit of the latter listed.
	Already, MovedOn int64
	MovedOnItems     []journal.Item
	// QueueLength is the length of a drain's queue as planned: how long
	// the walks of its undo's calls are.
	QueueLength int64
}

// UndoItem is one thing to put back. Item holds what the journal says;
// Maybe is set for an item of a call whose reply was never read.
type UndoItem struct {
	Item  journal.Item
	Maybe bool
	// RedisMs is Redis's clock when the journal read the values before:
	// remaining times to live count from it.
	RedisMs int64
}

// PlanUndo reads the journal of an action and works out its undo, reading
// the queues on c where a requeued job's bytes are not in the journal.
// Reaps, orphan requeues and lock repairs are refused (they repair broken
// state: putting it back would break it again), and so is an undo (undoing
// it would write the action again with new bytes and new times: run the
// action again instead), each with ErrUndoRefused.
func PlanUndo(ctx context.Context, c redis.Conn, keys redisq.Keys, a *journal.Action) (UndoPlan, error) {
	p := UndoPlan{Of: a, Op: a.Header.Op}
	switch a.Header.Op {
	case journal.OpReap, journal.OpOrphans, journal.OpRepairLocks:
		return p, fmt.Errorf("action %s (%s) %w: it repaired broken state (a dead pool's jobs, lost in-progress lists or drifted locks), and putting that back would break it again; its journal stays on record in the history", a.Header.ID, a.Header.Command, ErrUndoRefused)
	case journal.OpUndo:
		return p, fmt.Errorf("action %s is an undo of %s and %w: undoing it would write that action again with new bytes and new times; run the action again instead", a.Header.ID, a.Header.UndoOf, ErrUndoRefused)
	case journal.OpRequeue, journal.OpDelete, journal.OpQueueDelete, journal.OpRemoveLeaked, journal.OpPause, journal.OpUnpause, journal.OpThrottle, journal.OpDeleteUnique:
	case journal.OpQueueDrain, journal.OpQueuePark:
	case journal.OpEdit, journal.OpDuplicate:
	default:
		return p, fmt.Errorf("action %s: unknown operation %q: %w", a.Header.ID, a.Header.Op, ErrUndoRefused)
	}
	if ns := keys.Prefix(); ns != redisq.NewKeys(a.Header.Namespace).Prefix() {
		return p, fmt.Errorf("action %s ran on namespace %q, not on %q: %w here", a.Header.ID, a.Header.Namespace, ns, ErrUndoRefused)
	}
	if a.Altered != "" {
		return p, fmt.Errorf("action %s: its journal was changed after it was written (%s), and it %w from it; the history shows what it holds", a.Header.ID, a.Altered, ErrUndoRefused)
	}
	if err := checkUndoKeys(a, keys.Prefix()); err != nil {
		return p, err
	}
	if isEditOp(a.Header.Op) {
		return planUndoEdit(ctx, c, p)
	}
	if isDrainOp(a.Header.Op) {
		return planUndoDrain(ctx, c, p, a)
	}
	var search []int // requeued items whose pushed bytes are to be looked for
	seen := map[string]bool{}
	for _, call := range a.Calls {
		committed := call.Commit != nil && call.Commit.Error == ""
		for i, it := range call.Intent.Items {
			code := byte('?')
			if committed && i < len(call.Commit.Codes) {
				code = call.Commit.Codes[i]
			}
			ui := UndoItem{Item: it, Maybe: !committed, RedisMs: call.Intent.RedisMs}
			find := false // a requeued job whose pushed bytes are to be looked for
			switch a.Header.Op {
			case journal.OpRequeue:
				switch {
				case committed && code == 'm' && call.Commit.Now != "":
					ui.Item.New = requeued(it, call.Commit.Now)
				case committed:
					p.NotChanged++
					continue
				default:
					find = true
				}
			case journal.OpDelete:
				if committed && code != 'd' && code != 'u' {
					p.NotChanged++
					continue
				}
				if !restoreUnique(it, committed, code == 'u') {
					ui.Item.Unique = nil
				}
			case journal.OpQueueDelete, journal.OpRemoveLeaked:
				if committed && (len(call.Commit.Counts) == 0 || call.Commit.Counts[0] == 0) {
					p.NotChanged++
					continue
				}
				if committed {
					ui.Item.Count = call.Commit.Counts[0]
				}
				if !restoreUnique(it, committed, call.Commit != nil && call.Commit.Codes == "1") {
					ui.Item.Unique = nil
				}
			case journal.OpDeleteUnique:
				if it.Key == nil {
					continue
				}
				deleted := committed && i < len(call.Commit.Statuses) && call.Commit.Statuses[i] == UniqueDeleted
				if committed && !deleted {
					p.NotChanged++
					continue
				}
			case journal.OpThrottle:
				if !undoesThrottle(it, call.Commit, committed) {
					p.NotChanged++
					continue
				}
			case journal.OpPause, journal.OpUnpause:
				if it.Key == nil {
					continue
				}
				status := ""
				if committed && i < len(call.Commit.Statuses) {
					status = call.Commit.Statuses[i]
				}
				changed := status == PauseDone || status == UnpauseDone
				if committed && !changed || !committed && it.Key.Exists == (a.Header.Op == journal.OpPause) {
					p.NotChanged++
					continue
				}
			}
			if id := itemIdentity(it); seen[id] {
				continue // the same item twice: put back once
			} else {
				seen[id] = true
			}
			if ui.Maybe {
				p.Maybe++
			}
			if find {
				search = append(search, len(p.Items))
			}
			p.Items = append(p.Items, ui)
		}
	}
	if err := p.findPushed(ctx, c, search); err != nil {
		return p, err
	}
	if err := p.checkInPlace(ctx, c); err != nil {
		return p, err
	}
	return p, nil
}

// itemIdentity names what an item changed: a member of a set, a job's
// bytes in a queue or a key. An action changes each at most once, so two
// items of one identity are a journal's record written twice.
func itemIdentity(it journal.Item) string {
	if it.Key != nil {
		return "k\x00" + it.Key.Name
	}
	return it.Set + "\x00" + it.Queue + "\x00" + string(it.Old)
}

// requeued is the exact bytes a requeue pushed: the new job around the `t`
// the script wrote.
func requeued(it journal.Item, now string) []byte {
	out := make([]byte, 0, len(it.NewBefore)+len(now)+len(it.NewAfter))
	out = append(out, it.NewBefore...)
	out = append(out, now...)
	return append(out, it.NewAfter...)
}

// restoreUnique is whether a deleted job's unique key goes back with it:
// when the delete reported deleting it, or, for a call whose reply was
// never read, when the key was there and the delete would have taken it
// (always for 'a', for 'o' when it names the job).
func restoreUnique(it journal.Item, committed, deleted bool) bool {
	u := it.Unique
	if u == nil || !u.Exists || (u.Value == nil && u.PTTL == 0) {
		return false
	}
	if committed {
		return deleted
	}
	if u.Mode != "o" {
		return true
	}
	var job, held struct {
		ID string `json:"id"`
	}
	return json.Unmarshal(it.Old, &job) == nil && json.Unmarshal(u.Value, &held) == nil && held.ID != "" && held.ID == job.ID
}

// pageLen is how many queue elements one read of findPushed takes.
const pageLen = 1000

// findPushed looks, in each queue, for the bytes a requeue whose reply was
// never read may have pushed: the new job around any `t` of digits. The
// queue is read from its head, where the requeue pushed, until all are
// found. An item not found keeps no New: its put-back leaves the queue
// alone.
func (p *UndoPlan) findPushed(ctx context.Context, c redis.Conn, idx []int) error {
	byQueue := map[string][]int{}
	var order []string
	for _, i := range idx {
		q := p.Items[i].Item.Queue
		if byQueue[q] == nil {
			order = append(order, q)
		}
		byQueue[q] = append(byQueue[q], i)
	}
	for _, q := range order {
		left := byQueue[q]
		taken := map[string]bool{}
		for start := 0; len(left) > 0; start += pageLen {
			page, err := redis.ByteSlices(redis.DoContext(c, ctx, "LRANGE", q, start, start+pageLen-1))
			if err != nil {
				return fmt.Errorf("undo: read %s: %w", q, err)
			}
			for _, el := range page {
				for k, i := range left {
					it := &p.Items[i].Item
					if !taken[string(el)] && matchesPushed(el, it.NewBefore, it.NewAfter) {
						it.New = el
						taken[string(el)] = true
						left = append(left[:k:k], left[k+1:]...)
						break
					}
				}
			}
			if len(page) < pageLen {
				break
			}
		}
		p.NotFound += int64(len(left))
	}
	return nil
}

// matchesPushed is whether el is the new job before + digits + after.
func matchesPushed(el, before, after []byte) bool {
	if len(el) <= len(before)+len(after) || !bytes.HasPrefix(el, before) || !bytes.HasSuffix(el, after) {
		return false
	}
	for _, b := range el[len(before) : len(el)-len(after)] {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}
