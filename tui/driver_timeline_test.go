package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// T charts the failures over time, the selected bucket's jobs and the
// command that lists them; enter lists them in the Jobs view. :timeline
// takes a window.
func TestDriveTimeline(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail")
	// One second: the chart's buckets are never split between them.
	seed.DeadAt("refund", "gateway down", seed.Now-60, "rf0", "rf1", "rf2")
	s := screentest.Start(t, srv)
	s.Wait("feedface")
	s.Press("T")
	screen := s.Wait("› timeline]", "3 failures in", "jobs: refund 3", "gateway down")
	if !strings.Contains(screen, "workq-tui --redis "+srv.Addr()+" jobs dead --where") {
		t.Errorf("the timeline does not give the command that lists the bucket's jobs:\n%s", screen)
	}
	s.Press("enter")
	s.Wait("[dead 3]", "where since:", "rf0", "rf1", "rf2", "filter: since:")
	s.Press("esc", "esc")
	s.Run("timeline 1h")
	s.Wait("3 failures in 1h")
}
