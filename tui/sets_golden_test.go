package tui

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestSetsGolden: the Jobs view at 80x24 (list with its detail pane, the
// full detail of a job and of a member that is not JSON, the summary, the
// dialog, read-only) and at 140x40, with an Ascii renderer and a frozen
// clock.
func TestSetsGolden(t *testing.T) {
	tests := []struct {
		name     string
		w, h     int
		readOnly bool
		keys     []string
	}{
		{name: "list", w: 80, h: 24, keys: []string{"j", "j", "j"}},
		{name: "list_wide", w: 140, h: 40, keys: []string{"j", "j", "j", " ", "j", " "}},
		{name: "detail_job", w: 80, h: 24, keys: []string{"j", "j", "j", "enter"}},
		{name: "detail_raw", w: 80, h: 24, keys: []string{"enter"}},
		{name: "summary", w: 80, h: 24, keys: []string{"S", "j"}},
		{name: "summary_dialog", w: 80, h: 24, keys: []string{"S", "R"}},
		{name: "retry", w: 80, h: 24, keys: []string{"s"}},
		{name: "dialog", w: 80, h: 24, keys: []string{"j", "j", "j", " ", " ", "R"}},
		{name: "read_only", w: 80, h: 24, readOnly: true, keys: []string{"j"}},
		{name: "full_help", w: 80, h: 24, keys: []string{"?"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := openJobs(t, deadFixture(), tc.readOnly, tc.w, tc.h)
			for _, k := range tc.keys {
				m = drive(t, m, keyMsg(k))
			}
			view := m.View()
			checkScreen(t, view, tc.w, tc.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}
