package tui

// This file owns the stack of views: the tabs are its bottom layer, and
// what enter opens (a pool's detail, a job type's queue, a worker's
// arguments) is pushed on the focused tab; esc pops the top one, and
// tab or shift+tab leave them all. Every view on the stack gets the
// snapshots, the sizes and the messages of its reads; only the top one
// gets the keys and is drawn.

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// loadMsg asks a view on the stack to read again what it shows: when it
// opens, on r, and after an action. A view that reads nothing of its own
// ignores it.
type loadMsg struct{}

// top is the view on screen: the last one pushed, or the focused tab.
func (m Model) top() view {
	if n := len(m.stack); n > 0 {
		return m.stack[n-1]
	}
	return m.focused()
}

// setTop stores the view on screen back in its slot; a nil view pops it.
func (m Model) setTop(v view) Model {
	n := len(m.stack)
	if n == 0 {
		if v == nil {
			return m
		}
		return m.setFocused(v)
	}
	m.stack = append([]view(nil), m.stack[:n-1]...)
	if v != nil {
		m.stack = append(m.stack, v)
	}
	return m
}

// updateTop gives a message to the view on screen.
func (m Model) updateTop(msg tea.Msg) (Model, tea.Cmd) {
	v, cmd := m.top().update(msg)
	return m.setTop(v), cmd
}

// opened is whether a view is pushed on the focused tab.
func (m Model) opened() bool { return len(m.stack) > 0 }

// push opens v on top of the view on screen, sized to the body, and lets
// it start its reads.
func (m Model) push(v view) (Model, tea.Cmd) {
	m.views++
	v = v.setSize(m.width, max(m.lay.body, 1))
	v, cmd := v.update(loadMsg{})
	m.stack = append(append([]view(nil), m.stack...), v)
	return m, cmd
}

// pop closes the view on top; the tabs are never popped.
func (m Model) pop() Model {
	if n := len(m.stack); n > 0 {
		m.stack = append([]view(nil), m.stack[:n-1]...)
	}
	return m
}

// eachOpen gives msg to every pushed view (a page read is for one of
// them, a loadMsg for all) and batches their commands.
func (m Model) eachOpen(msg tea.Msg) (Model, tea.Cmd) {
	if len(m.stack) == 0 {
		return m, nil
	}
	var cmds []tea.Cmd
	stack := make([]view, 0, len(m.stack))
	for _, v := range m.stack {
		v, cmd := v.update(msg)
		cmds = append(cmds, cmd)
		if v == nil {
			break
		}
		stack = append(stack, v)
	}
	m.stack = stack
	return m, tea.Batch(cmds...)
}

// setOpenSnapshot gives a snapshot to every pushed view; one that closes
// (nil) takes the views above it along.
func (m Model) setOpenSnapshot(s *model.Snapshot) Model {
	stack := make([]view, 0, len(m.stack))
	for _, v := range m.stack {
		if v = v.setSnapshot(s, m.history); v == nil {
			break
		}
		stack = append(stack, v)
	}
	m.stack = stack
	return m
}

// openSelected is enter on a tab: it pushes the view of what is under the
// cursor. This is the one place the views enter opens are pushed.
func (m Model) openSelected() (Model, tea.Cmd) {
	sel := m.top().selected()
	switch {
	case sel.jobType != nil:
		if m.rd.queue == nil {
			return m.setStatus("queue contents are not available here", true)
		}
		return m.push(m.newQueue(sel.jobType.Name))
	case sel.pool != nil:
		return m.push(newDetail(m.views, sel.pool.ID, m.snap, m.keys, m.rd.peek, m.opts.FetchTimeout))
	case sel.worker != nil:
		wv, _ := m.top().(workersView)
		return m.push(newArgsView(*sel.worker, wv.readAt, wv.latest, m.keys))
	case sel.action != nil:
		return m.push(newActionView(m.views, *sel.action, m.keys, m.rd.history, m.opts.FetchTimeout))
	case sel.window != nil:
		return m.showWindow(*sel.window)
	case sel.place != nil:
		return m.jumpToPlace(*sel.place)
	}
	return m, nil
}
