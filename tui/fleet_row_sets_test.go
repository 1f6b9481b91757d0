package tui

import (
	"testing"

	"github.com/workq-tui/workq-tui/model"
)

// A fleet row carries its snapshot's job set sizes, zero included (a known
// zero shows as 0, not as "-").
func TestSumSnapshotSetSizes(t *testing.T) {
	for _, sets := range []model.SetCounts{{}, {Retry: 3, Scheduled: 1, Dead: 11024}} {
		sum := sumSnapshot(&model.Snapshot{Sets: sets})
		if sum.retry == nil || sum.scheduled == nil || sum.deadJobs == nil {
			t.Fatalf("sets %+v: a size is missing: %v %v %v", sets, sum.retry, sum.scheduled, sum.deadJobs)
		}
		if got := (model.SetCounts{Retry: *sum.retry, Scheduled: *sum.scheduled, Dead: *sum.deadJobs}); got != sets {
			t.Errorf("sums %+v, want %+v", got, sets)
		}
	}
}
