package tui

import (
	"fmt"
	"reflect"
	"testing"
)

func TestFitPlanKeepsHeadAndClosingParagraph(t *testing.T) {
	var body []string
	for i := 0; i < 17; i++ {
		body = append(body, fmt.Sprintf("line %d", i))
	}
	body = append(body, "", "Total: 9 jobs.", "Each pool is re-checked.")
	for _, tc := range []struct {
		room int
		want []string
	}{
		{20, body},
		{8, []string{"line 0", "line 1", "line 2", "line 3", "line 4", "… and 13 more lines", "Total: 9 jobs.", "Each pool is re-checked."}},
		{3, []string{"line 0", "line 1", "… and 18 more lines"}},
		{0, nil},
	} {
		if got := fitPlan(body, tc.room); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("room %d:\n got %q\nwant %q", tc.room, got, tc.want)
		}
	}
}

func TestWrapPlanIndentsContinuations(t *testing.T) {
	got := wrapPlan([]string{"  job send_email, pool p1 (orphan: pool not in worker_pools)", "short"}, 30)
	want := []string{"  job send_email, pool p1", "    (orphan: pool not in", "    worker_pools)", "short"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
