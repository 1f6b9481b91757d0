package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// fakeNamespaces finds the namespaces it holds and counts its searches.
type fakeNamespaces struct {
	found    []string
	searches *int
}

func (f fakeNamespaces) FindNamespaces(context.Context) (model.NamespaceSearch, error) {
	*f.searches++
	return model.NamespaceSearch{Namespaces: f.found}, nil
}

// emptySnapshot is what a poll of a namespace without any key reads.
func emptySnapshot(ns string) *model.Snapshot {
	s := &model.Snapshot{Namespace: ns, RedisTime: fixedNow, DeadAfter: model.DefaultDeadAfter}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

// emptyScreen is the screen on the empty namespace inc33 of a database
// where inc3 and myapp hold gocraft/work keys, after its first poll and
// the search that follows it.
func emptyScreen(t *testing.T, switchable, readOnly bool) (Model, *int) {
	t.Helper()
	searches := 0
	o, _ := testOptions(staticSource(emptySnapshot("inc33")))
	o.Namespace, o.SwitchNamespace, o.ReadOnly = "inc33", switchable, readOnly
	o.Reads.Namespaces = fakeNamespaces{found: []string{"inc3", "myapp"}, searches: &searches}
	m := newInstant(o)
	m = step(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, msg := range runCmd(m.firstFetch()) {
		var cmd tea.Cmd
		m, cmd = stepCmd(m, msg)
		for _, next := range runCmd(cmd) {
			if ns, ok := next.(namespaceSearchMsg); ok {
				m = step(t, m, ns)
			}
		}
	}
	return m, &searches
}

// The header's first line counts the empty namespace at 80 columns, the
// status line names the namespaces found, and n (a read, so in read-only
// mode too) ends the screen for the program to open the closest one.
func TestEmptyNamespaceSwitch(t *testing.T) {
	m, searches := emptyScreen(t, true, true)
	view := m.View()
	checkScreen(t, view, 80, 24)
	lines := strings.Split(view, "\n")
	if !strings.Contains(lines[0], "1 problem: 1 empty namespace") {
		t.Errorf("header's first line: %q", lines[0])
	}
	want := "ns inc33 has no gocraft/work keys; found inc3, myapp: n opens inc3"
	if !strings.Contains(view, want) {
		t.Errorf("no %q on screen:\n%s", want, view)
	}
	if *searches != 1 {
		t.Errorf("%d searches, want 1", *searches)
	}
	// Later polls of the same empty namespace do not search again.
	m, poll := m.startFetch()
	m, cmd := stepCmd(m, runCmd(poll)[0])
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(namespaceSearchMsg); ok {
			t.Errorf("a second search")
		}
	}
	if !strings.Contains(strings.Split(m.View(), "\n")[0], "empty namespace") {
		t.Errorf("the verdict is lost on the next poll:\n%s", m.View())
	}

	m, cmd = stepCmd(m, keyMsg("n"))
	if m.SwitchTo() != "inc3" {
		t.Errorf("SwitchTo = %q, want inc3", m.SwitchTo())
	}
	if cmd == nil {
		t.Fatal("n did not end the screen")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("n did not end the screen")
	}
}

// A screen that cannot switch (one of a fleet) names what it found, and n
// does nothing but say why.
func TestEmptyNamespaceNoSwitch(t *testing.T) {
	m, _ := emptyScreen(t, false, false)
	view := m.View()
	if !strings.Contains(view, "found inc3, myapp") || strings.Contains(view, "n opens") {
		t.Errorf("screen:\n%s", view)
	}
	m, cmd := stepCmd(m, keyMsg("n"))
	if m.SwitchTo() != "" {
		t.Errorf("SwitchTo = %q", m.SwitchTo())
	}
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			t.Errorf("n ended a screen that cannot switch")
		}
	}
}
