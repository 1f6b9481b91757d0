package reaper

import "testing"

// TestPlanRateLeavesTheExecutor: a plan's own rate paces a copy; the
// executor, shared by the screen's runs, keeps its batch and rate.
func TestPlanRateLeavesTheExecutor(t *testing.T) {
	e := NewJobsExecutor("work", 100)
	p := e.paced(50)
	if p.rate != 50 || p.batch != 5 {
		t.Errorf("paced: rate %d batch %d, want 50 and 5", p.rate, p.batch)
	}
	if e.rate != 0 || e.batch != 100 {
		t.Errorf("the executor changed: rate %d batch %d", e.rate, e.batch)
	}
}
