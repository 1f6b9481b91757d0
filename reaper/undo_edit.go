package reaper

// This file owns the undo of an edit or a duplicate: which journalled item
// to put back, the bytes the action wrote, and the arguments of
// lua/undo_edit.lua.

import (
	"context"
	_ "embed"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/model"
)

//go:embed lua/undo_edit.lua
var luaUndoEdit string

// isEditOp is whether op is an edit or a duplicate.
func isEditOp(op string) bool { return op == journal.OpEdit || op == journal.OpDuplicate }

// editMode is what the action did to an item: EditReplace, EditRequeue or
// EditCopy.
func editMode(op string, it journal.Item) string {
	switch {
	case op == journal.OpDuplicate:
		return EditCopy
	case it.Queue != "":
		return EditRequeue
	}
	return EditReplace
}

// planUndoEdit lists the items of an edit's or duplicate's journal to put
// back: those its call wrote, and those of a call whose reply was never
// read (a requeued or copied job's bytes are then looked for in its queue).
func planUndoEdit(ctx context.Context, c redis.Conn, p UndoPlan) (UndoPlan, error) {
	var search []int
	for _, call := range p.Of.Calls {
		committed := call.Commit != nil && call.Commit.Error == ""
		for _, it := range call.Intent.Items {
			ui := UndoItem{Item: it, Maybe: !committed, RedisMs: call.Intent.RedisMs}
			mode := editMode(p.Op, it)
			if committed {
				if code := call.Commit.Codes; code != "e" && code != "q" && code != "c" {
					p.NotChanged++
					continue
				}
				if ui.Item.Unique != nil {
					// What the call did to the key, as it reported it.
					u := *ui.Item.Unique
					u.Mode = ""
					if len(call.Commit.Statuses) > 0 {
						u.Mode = map[string]string{"moved": uniqueMove, "set": uniqueSet}[call.Commit.Statuses[0]]
					}
					ui.Item.Unique = &u
				}
				if mode != EditReplace {
					ui.Item.New = requeued(it, call.Commit.Now)
				}
			} else {
				p.Maybe++
				if mode != EditReplace {
					search = append(search, len(p.Items))
				}
			}
			p.Items = append(p.Items, ui)
		}
	}
	if err := p.findPushed(ctx, c, search); err != nil {
		return p, err
	}
	return p, nil
}

// editUndoArgs are the keys and arguments of lua/undo_edit.lua for one
// item of an edit or duplicate, op being the action's Op.
func editUndoArgs(op string, ui UndoItem) (keys, argv []any) {
	it := ui.Item
	queue := it.Queue
	if queue == "" {
		queue = it.Set
	}
	oldKey, newKey := it.Set, it.Set
	uop, value, deadline := "", []byte{}, int64(0)
	if u := it.Unique; u != nil && u.Mode != "" {
		switch u.Mode {
		case uniqueMove:
			uop, oldKey, newKey = "moved", u.Name, uniqueOfWritten(it)
			value = u.Value
			if u.PTTL > 0 {
				deadline = ui.RedisMs + u.PTTL
			}
		case uniqueSet:
			uop, newKey = "set", u.Name
		}
		if newKey == "" {
			uop, oldKey, newKey = "", it.Set, it.Set
		}
	}
	wrote := it.New
	if wrote == nil {
		wrote = []byte{}
	}
	return []any{it.Set, queue, oldKey, newKey},
		[]any{editMode(op, it), it.Old, it.Score, wrote, uop, value, deadline}
}

// uniqueOfWritten is the unique key of the job the action wrote, where a
// moved key went ("" when it cannot be built: its bytes are not known).
func uniqueOfWritten(it journal.Item) string {
	if len(it.New) == 0 {
		return ""
	}
	return uniqueKeyOf(it.Set, it.New)
}

// uniqueKeyOf is the unique key of job bytes raw that were in the set
// with key set (whose name, after the namespace's prefix, is the set's).
func uniqueKeyOf(set string, raw []byte) string {
	prefix, ok := "", false
	for _, n := range []model.SetName{model.SetRetry, model.SetScheduled, model.SetDead} {
		if p, found := strings.CutSuffix(set, string(n)); found {
			prefix, ok = p, true
			break
		}
	}
	sj := model.ParseMember("", raw)
	if !ok || sj.Job == nil {
		return ""
	}
	k, unique, err := sj.Job.UniqueKeyIn(prefix)
	if err != nil || !unique {
		return ""
	}
	return k
}
