package tui

import (
	"strings"
	"testing"
)

// 1-5 jump to the views, the full help names them, and esc closes it.
func TestDigitsJumpToViewsAndHelpListsThem(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := newTest(t, o, 160, 45)
	if tabCount(m) < 3 {
		t.Fatalf("only %d views", tabCount(m))
	}
	for i := tabCount(m); i >= 1; i-- {
		m = step(t, m, keyMsg(string(rune('0'+i))))
		if tabIndex(m) != i-1 {
			t.Fatalf("%d: on view %d (%s)", i, tabIndex(m)+1, m.focused().title())
		}
	}
	m = step(t, m, keyMsg("enter"))
	m = step(t, m, keyMsg("2"))
	if tabIndex(m) != 1 || m.opened() {
		t.Fatalf("2 from a pushed view: tab %d, opened %v", tabIndex(m), m.opened())
	}
	m = step(t, m, keyMsg("?"))
	v := m.View()
	tabs, _ := drawnTabs(m)
	if len(tabs) < 4 {
		t.Fatalf("the header draws tabs %v", tabs)
	}
	for i, tab := range tabs {
		if !strings.Contains(v, string(rune('1'+i))+" "+tab) {
			t.Errorf("the help does not list view %d %q:\n%s", i+1, tab, v)
		}
	}
	if !strings.Contains(v, "close help") {
		t.Errorf("the help does not say esc closes it:\n%s", v)
	}
	m = step(t, m, keyMsg("esc"))
	if strings.Contains(m.View(), "close help") {
		t.Fatal("esc left the help open")
	}
	if tabIndex(m) != 1 {
		t.Fatalf("esc on the help moved to view %d", tabIndex(m)+1)
	}
}
