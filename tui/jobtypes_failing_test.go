package tui

import (
	"slices"
	"testing"
)

// TestJobTypeColumnsFailing: while a type is failing, FAIL/M stays at 60
// columns beside WHY and DRIFT; without one it goes first, as before.
func TestJobTypeColumnsFailing(t *testing.T) {
	titles := func(cols []column) []string {
		var out []string
		for _, c := range cols {
			out = append(out, c.title)
		}
		return out
	}
	for _, w := range []int{60, 80} {
		got := titles(jobTypeColumns(w, nil, true))
		for _, want := range []string{"JOB", "FAIL/M", "DRIFT", "WHY"} {
			if !slices.Contains(got, want) {
				t.Errorf("failing, %d columns: %v lacks %s", w, got, want)
			}
		}
	}
	if got := titles(jobTypeColumns(60, nil, false)); slices.Contains(got, "FAIL/M") || !slices.Contains(got, "WHY") {
		t.Errorf("nothing failing, 60 columns: %v", got)
	}
	if !anyFailing(healthFixture()) || anyFailing(fixture()) {
		t.Error("anyFailing does not tell the health fixture from the plain one")
	}
}
