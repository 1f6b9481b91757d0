package tui

// This file routes the Jobs view's keys: the root gives each to
// onSetsKey. The view's reads are its own (sets_load.go), and so is what
// it does when one of its actions ends (actionDone).

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
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

// setsView returns the Jobs view; ok is false when the screen has none.
func (m Model) setsView() (setsView, bool) {
	i := m.setsTab()
	if i < 0 {
		return setsView{}, false
	}
	return m.tabs[i].(setsView), true
}

// withSets stores the Jobs view back in its slot.
func (m Model) withSets(v setsView) Model {
	i := m.setsTab()
	if i < 0 {
		return m
	}
	m.tabs = append([]view(nil), m.tabs...)
	m.tabs[i] = v
	return m
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
	if v, ok := m.setsView(); ok && m.setsFocused() && m.dialog == nil && !v.loaded && !v.loading {
		return m.setsLoad(v, 0, false)
	}
	return m, nil
}

// onSetsKey is one key the Jobs view takes (setsTakes): its own keys,
// else the root's onKey.
func (m Model) onSetsKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	v, _ := m.setsView()
	if !m.setsFocused() {
		// A job's detail: R and D act on it, the other keys are the
		// detail's and the root's.
		k := m.keyMap()
		switch {
		case key.Matches(msg, k.SetsRequeue):
			return m.openSetsAction(actionJobsRequeue, v)
		case key.Matches(msg, k.SetsDelete):
			return m.openSetsAction(actionJobsDelete, v)
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
			v, _ := m.setsView()
			m, load := m.applySetsQuery(v, v.typed)
			return m, tea.Batch(cmd, load)
		}
		return m.onKey(msg)
	}
	k := m.keyMap()
	switch {
	case key.Matches(msg, k.SetsRequeue):
		return m.openSetsAction(actionJobsRequeue, v)
	case key.Matches(msg, k.SetsDelete):
		return m.openSetsAction(actionJobsDelete, v)
	case key.Matches(msg, k.SetsSummary):
		return m.toggleSetsSummary(v)
	case key.Matches(msg, k.Refresh):
		m, cmd := m.refresh()
		m, load := m.setsLoad(v, v.offset, true)
		var scan tea.Cmd
		if v.showSummary {
			m, scan = m.startSetsSummary()
		}
		return m, tea.Batch(cmd, load, scan)
	}
	if v.showSummary {
		if key.Matches(msg, m.keys.Back) {
			v.showSummary = false
			return m.withSets(v), nil
		}
		if key.Matches(msg, k.Enter) {
			// The jobs of the picked type that the summary counted.
			name, _ := v.summaryPick()
			v.showSummary = false
			return m.applySetsQuery(v, strings.TrimSpace(v.summary.where+" "+jobQuery(name)))
		}
		if key.Matches(msg, k.NextSet) {
			v = v.switchSet()
			v.showSummary = true
			m, load := m.setsLoad(v, 0, false)
			m, scan := m.startSetsSummary()
			return m, tea.Batch(load, scan)
		}
		return m.onKey(msg)
	}
	switch {
	case key.Matches(msg, k.NextSet):
		return m.setsLoad(v.switchSet(), 0, false)
	case key.Matches(msg, k.SetsOrder):
		v.reverse = !v.reverse
		v.marked, v.markAll = nil, false
		return m.setsLoad(v, 0, false)
	case key.Matches(msg, k.Mark):
		return m.withSets(v.toggleMark()), nil
	case key.Matches(msg, k.MarkAll):
		return m.toggleMarkAll(v)
	case key.Matches(msg, k.PageDown):
		if int64(v.offset+setsPageSize) >= v.total {
			return m.setStatus("last page", false)
		}
		return m.setsLoad(v, v.offset+setsPageSize, false)
	case key.Matches(msg, k.PageUp):
		if v.offset == 0 {
			return m.setStatus("first page", false)
		}
		return m.setsLoad(v, v.offset-setsPageSize, false)
	case key.Matches(msg, k.Enter):
		if sj, ok := v.current(); ok {
			jv := newSetJobView(v, sj)
			jv.edits = v.writes && m.wr.Edit != nil
			return m.push(jv)
		}
		return m, nil
	case key.Matches(msg, m.keys.Back) && v.markAll:
		v.markAll = false
		return m.withSets(v).setStatus("marks cleared", false)
	case key.Matches(msg, m.keys.Back) && len(v.marked) > 0:
		n := len(v.marked)
		v.marked = nil
		return m.withSets(v).setStatus(fmt.Sprintf("%s cleared", plural(n, "mark", "marks")), false)
	case key.Matches(msg, m.keys.Back) && v.jobFilter != "":
		return m.applySetsQuery(v, "")
	}
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

// setsLoad has the Jobs view read the page at offset (setsView.load).
func (m Model) setsLoad(v setsView, offset int, keep bool) (Model, tea.Cmd) {
	v, cmd := v.load(offset, keep)
	return m.withSets(v), cmd
}

// toggleSetsSummary opens or closes the Jobs view's summary
// (setsView.toggleSummary).
func (m Model) toggleSetsSummary(v setsView) (Model, tea.Cmd) {
	v, cmd := v.toggleSummary()
	return m.withSets(v), cmd
}

// startSetsSummary starts the Jobs view's summary scan
// (setsView.startSummary).
func (m Model) startSetsSummary() (Model, tea.Cmd) {
	v, _ := m.setsView()
	v, cmd := v.startSummary()
	return m.withSets(v), cmd
}
