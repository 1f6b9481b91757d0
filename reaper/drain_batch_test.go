package reaper

import (
	"bytes"
	"testing"
)

// A call deep in a long queue carries more jobs than one near either end:
// its closing LREM walks from the nearer end, and more jobs a call means
// fewer walks. The count limit (--batch) always holds.
func TestDrainBatchLenGrowsWithDepth(t *testing.T) {
	const length = 1_000_000
	items := func(first int64) []DrainItem {
		out := make([]DrainItem, 5000)
		for i := range out {
			out[i] = DrainItem{Raw: bytes.Repeat([]byte("x"), 100), Position: first + int64(i)*10}
		}
		return out
	}
	near := drainBatchLen(items(0), 5000, length)
	if want := MaxBatchBytes / 100; near != want {
		t.Fatalf("near the right end: %d jobs, want %d (MaxBatchBytes of jobs)", near, want)
	}
	tail := drainBatchLen(items(length-1000), 5000, length)
	if tail != near {
		t.Fatalf("near the left end: %d jobs, want %d as at the right", tail, near)
	}
	mid := drainBatchLen(items(length/2), 5000, length)
	if want := drainMaxScale * MaxBatchBytes / 100; mid != want {
		t.Fatalf("in the middle: %d jobs, want %d", mid, want)
	}
	if got := drainBatchLen(items(length/2), 300, length); got != 300 {
		t.Fatalf("with a limit of 300: %d jobs", got)
	}
	if got := drainBatchLen(nil, 300, length); got != 0 {
		t.Fatalf("no items: %d", got)
	}
}

// An undo's call takes few items whose LINSERTs walk a long queue: one
// whose job ahead is near the queue's front (the far end from LINSERT's
// start) goes alone, so that no call holds Redis for long; items near the
// queue's back go together, up to drainUndoBatch.
func TestDrainUndoBatchBoundsTheWalk(t *testing.T) {
	u := &Undoer{batch: 1000}
	const length = 1_000_000
	items := func(pos int64) []UndoItem {
		out := make([]UndoItem, 40)
		for i := range out {
			out[i].Item.Old = []byte("{}")
			out[i].Item.Position = pos
		}
		return out
	}
	if n := u.drainBatchOf(items(10), length); n != 1 {
		t.Errorf("near the front of a million: %d items a call, want 1", n)
	}
	if n := u.drainBatchOf(items(length/2), length); n != 2 {
		t.Errorf("in the middle: %d items a call, want 2", n)
	}
	if n := u.drainBatchOf(items(length-100), length); n != drainUndoBatch {
		t.Errorf("near the back: %d items a call, want %d", n, drainUndoBatch)
	}
	if n := u.drainBatchOf(items(10), 1000); n != drainUndoBatch {
		t.Errorf("a short queue: %d items a call, want %d", n, drainUndoBatch)
	}
}
