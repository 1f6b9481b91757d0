package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// The check-in shows its age, and one older than --long-after is STALE.
func TestWorkersCheckinAgeAndStale(t *testing.T) {
	at := time.Unix(1795964400, 0)
	run := time.Minute
	busy := []model.Worker{
		{PoolID: "p1", WorkerID: "w-fresh", JobName: "a", Running: &run, Checkin: "step 2", HasCheckin: true, CheckinAt: at.Add(-30 * time.Second).Unix()},
		{PoolID: "p1", WorkerID: "w-stale", JobName: "b", Running: &run, Checkin: "step 1", HasCheckin: true, CheckinAt: at.Add(-2 * time.Hour).Unix()},
	}
	st := newStyles(asciiRenderer(), defaultTheme())
	out := renderWorkers(busy, true, at, []int{0, 1}, listState{}, nil, time.Hour, 160, 5, nil, st)
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[1], "step 2 (30s ago)") || strings.Contains(lines[1], "STALE") {
		t.Errorf("fresh check-in: %q", lines[1])
	}
	if !strings.Contains(lines[2], "step 1 (2h00m ago)") || !strings.Contains(lines[2], "STALE") {
		t.Errorf("stale check-in: %q", lines[2])
	}
}
