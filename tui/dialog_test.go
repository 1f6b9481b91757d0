package tui

import (
	"fmt"
	"reflect"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
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
		{8, []string{"line 0", "line 1", "line 2", "line 3", "line 4", "… and 13 more lines (j/k, pgdn: scroll)", "Total: 9 jobs.", "Each pool is re-checked."}},
		{3, []string{"line 0", "line 1", "… and 18 more lines (j/k, pgdn: scroll)"}},
		{0, nil},
	} {
		if got := fitPlan(body, tc.room, 0); !reflect.DeepEqual(got, tc.want) {
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

// q over a confirmation dialog cancels it as n and esc do: a reflex q at
// 3 a.m. must neither run the plan nor leave the screen.
func TestQInDialogCancels(t *testing.T) {
	for _, k := range []string{"q", "n", "esc"} {
		o, _ := testOptions(staticSource(fixture()))
		m := newTest(t, o, 120, 30)
		m = step(t, m, keyMsg("j"))
		m = step(t, m, keyMsg("x"))
		if !dialogOpen(m) {
			t.Fatal("x on a dead pool opened no dialog")
		}
		m, cmd := stepCmd(m, keyMsg(k))
		for _, msg := range runCmd(cmd) {
			if _, ok := msg.(tea.QuitMsg); ok {
				t.Fatalf("%s in the dialog quits", k)
			}
		}
		if dialogOpen(m) || actionRunning(m) || !strings.Contains(statusOf(m), "cancelled") {
			t.Fatalf("%s in the dialog: dialog %v, running %v, status %q", k, dialogOpen(m), actionRunning(m), statusOf(m))
		}
	}
}

// TestDialogScrolls: at 60x20 a plan longer than the box scrolls with the
// list keys to its last line and back, its closing paragraph stays, and y
// still runs what was planned.
func TestDialogScrolls(t *testing.T) {
	o, d := testOptions(staticSource(manyPools(40)))
	m := newTest(t, o, 60, 20)
	m = press(t, m, "X")
	first := m.View()
	if !strings.Contains(first, "more lines (j/k, pgdn: scroll)") {
		t.Fatalf("a long plan does not say it scrolls:\n%s", first)
	}
	m = press(t, m, "G")
	last := m.View()
	if last == first || !strings.Contains(last, "lines ") || !strings.Contains(last, "Each pool is re-checked") {
		t.Fatalf("G did not scroll the plan:\n%s", last)
	}
	if step(t, m, keyMsg("j")).View() != last {
		t.Error("j past the end moved the plan")
	}
	if got := press(t, m, "g").View(); got != first {
		t.Errorf("g did not come back to the top:\n%s", got)
	}
	m, cmd := stepCmd(press(t, m, "pgup"), keyMsg("y"))
	deliver(t, m, cmd)
	if n := len(d.reaper.executed()); n != 1 {
		t.Fatalf("y after scrolling ran %d reaps", n)
	}
}
