package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// TestHelpIsAViewOnTheStack: ? opens the help over the view on screen,
// the actions' keys do nothing under it, and esc (or ? again) comes back
// to the view as it was.
func TestHelpIsAViewOnTheStack(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	m := newTest(t, o, 100, 30)
	m = press(t, m, "j")
	before := m.View()
	for _, closeKey := range []string{"esc", "?"} {
		m = press(t, m, "?")
		view := m.View()
		if !strings.Contains(view, "close help") || !strings.Contains(view, "X reap all") {
			t.Fatalf("the help does not list the keys:\n%s", view)
		}
		for _, k := range []string{"X", "x", "y"} {
			m = press(t, m, k)
		}
		if strings.Contains(m.View(), "y: run it") || len(d.reaper.executed()) != 0 {
			t.Fatalf("an action key under the help opened a dialog or ran:\n%s", m.View())
		}
		m = press(t, m, closeKey)
		if got := m.View(); got != before {
			t.Fatalf("%s did not come back to the view as it was:\n%s\nwant:\n%s", closeKey, got, before)
		}
	}
}

// TestHelpFitsNarrowScreens: at 60 columns every key of the help is on
// screen whole, the columns that do not fit below the others.
func TestHelpFitsNarrowScreens(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := press(t, newTest(t, o, 60, 40), "?")
	view := m.View()
	checkScreen(t, view, 60, 40)
	for _, want := range []string{"pgdn page down", "X reap all", "q quit", "4 Workers", "close help"} {
		if !strings.Contains(view, want) {
			t.Errorf("the help at 60 columns lacks %q:\n%s", want, view)
		}
	}
	// The header's two lines narrow on their own; the help's must not.
	if body := strings.SplitN(view, "\n", 3)[2]; strings.Contains(body, "…") {
		t.Errorf("the help at 60 columns cuts a line:\n%s", view)
	}
}

// TestHelpSaysWhatTheScreenCosts: the help opens with what the last poll
// cost Redis, as the poll measured it, and how often the screen polls.
func TestHelpSaysWhatTheScreenCosts(t *testing.T) {
	snap := fixture()
	snap.Cost = &model.ReadCost{Commands: 330, RoundTrips: 3, ReplyBytes: 84_200, Waited: 4100 * time.Microsecond}
	o, _ := testOptions(staticSource(snap))
	o.Interval = 2 * time.Second
	view := press(t, newTest(t, o, 120, 30), "?").View()
	want := "this screen's last poll: 330 commands in 3 round trips, 84.2 kB of replies, 4.1ms waiting for Redis; one every 2s"
	if !strings.Contains(view, want) {
		t.Errorf("the help lacks %q:\n%s", want, view)
	}
}
