package tui

// This file routes the keys the root still takes for the Jobs view, on
// it or on a job's detail over it (onSetsKey): R and D, enter on a job
// (pushed at once), e and d on the detail, and the filter line's enter
// and esc. The view's own keys (sets_keys.go), reads (sets_load.go) and
// what it does when one of its actions ends (actionDone) are its own.

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// setsTab is the index of the Jobs view among the tabs, -1 without one.
func (m Model) setsTab() int {
	for i, v := range m.tabs {
		if _, ok := v.(jobsShower); ok {
			return i
		}
	}
	return -1
}

// showJobsView brings the Jobs view on screen, closing what is pushed on
// the tab, and has it show what msg asks for.
func (m Model) showJobsView(msg showJobsMsg) (Model, tea.Cmd) {
	m.stack = nil
	m.tab = m.setsTab()
	return m.eachTab(msg)
}

// setsFocused reports whether the Jobs view is the one on screen.
func (m Model) setsFocused() bool {
	return !m.opened() && m.setsTab() == m.tab
}

// setsTakes reports whether the Jobs view takes the key msg: it or a job
// of it is on top, and no dialog is open. Other keys never pass through
// it.
func (m Model) setsTakes(msg tea.KeyMsg) bool {
	if m.dialog != nil || msg.Type == tea.KeyCtrlC || m.setsTab() < 0 {
		return false
	}
	return m.setsFocused() || (!m.filtering && m.setsTab() == m.tab && len(m.stack) == 1 && isSetJob(m.top()))
}

// setsShown makes the Jobs view's first read when a key brought it on
// screen.
func (m Model) setsShown() (Model, tea.Cmd) {
	if m.setsFocused() && m.dialog == nil {
		return m.updateTop(showJobsMsg{})
	}
	return m, nil
}

// onSetsKey is one key the Jobs view takes (setsTakes): its own keys,
// else the root's onKey.
func (m Model) onSetsKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	if !m.setsFocused() {
		// A job's detail: R and D act on it, the other keys are the
		// detail's and the root's.
		k := m.keyMap()
		switch {
		case key.Matches(msg, k.get(actions.SetsRequeue)):
			return m.openSetsAction(actionJobsRequeue)
		case key.Matches(msg, k.get(actions.SetsDelete)):
			return m.openSetsAction(actionJobsDelete)
		case isJobEditKey(msg, m.keys):
			// Matched on the bindings as configured, enabled or not: in
			// read-only mode they say why they do nothing.
			return m.onJobEditKey(msg)
		}
		return m.onKey(msg)
	}
	if m.filtering {
		switch msg.Type {
		case tea.KeyEnter, tea.KeyEsc:
			m, cmd := m.onFilterKey(msg)
			m, load := m.updateTop(showJobsMsg{typed: true})
			return m, tea.Batch(cmd, load)
		}
		return m.onKey(msg)
	}
	k := m.keyMap()
	switch {
	case key.Matches(msg, k.get(actions.SetsRequeue)):
		return m.openSetsAction(actionJobsRequeue)
	case key.Matches(msg, k.get(actions.SetsDelete)):
		return m.openSetsAction(actionJobsDelete)
	}
	if o, ok := m.top().(jobOpener); ok && key.Matches(msg, k.get(actions.Enter)) {
		if jv, mine := o.openJob(); mine {
			if jv == nil {
				return m, nil
			}
			return m.push(jv)
		}
	}
	// The view's own keys are its (sets_keys.go).
	return m.onKey(msg)
}

// switchSet shows the next set from its first page.
func (v setsView) switchSet() setsView {
	for i, s := range jobSets {
		if s == v.set {
			v.set = jobSets[(i+1)%len(jobSets)]
			break
		}
	}
	v.marked, v.markAll = nil, false
	return v
}
