package reaper

// This file owns the undo of a throttle: which journalled items to put
// back, and the arguments of lua/undo_throttle.lua.

import (
	_ "embed"

	"github.com/workq-tui/workq-tui/internal/journal"
)

//go:embed lua/undo_throttle.lua
var luaUndoThrottle string

// undoesThrottle is whether a throttle's journalled item is put back: when
// its call wrote the key, or when the call's reply was never read (the
// script re-checks that the key holds what the throttle wrote).
func undoesThrottle(it journal.Item, c *journal.Commit, committed bool) bool {
	if it.Key == nil || it.New == nil {
		return false
	}
	if !committed {
		return true
	}
	return len(c.Statuses) > 0 && c.Statuses[0] == ThrottleDone
}

// throttleUndoArgs are the keys and arguments of lua/undo_throttle.lua:
// per key what the throttle wrote, whether the key was there, its value.
func throttleUndoArgs(call []UndoItem) (keys, argv []any) {
	for _, it := range call {
		k := it.Item.Key
		existed := "0"
		if k.Exists {
			existed = "1"
		}
		keys = append(keys, k.Name)
		argv = append(argv, it.Item.New, existed, k.Value)
	}
	return keys, argv
}
