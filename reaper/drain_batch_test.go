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
