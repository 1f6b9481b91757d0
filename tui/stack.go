package tui

// This file owns the stack of views: the tabs are its bottom layer, and
// what enter opens (a pool's detail, a job type's queue, a worker's
// arguments) is pushed on the focused tab when the view under it asks
// (pushMsg); esc pops the top one, and
// tab or shift+tab leave them all. Every view on the stack gets the
// snapshots, the sizes and the messages of its reads; only the top one
// gets the keys and is drawn.

import (
	"time"

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

// eachTab gives msg, the result of a tab's own read (a page of the Jobs
// view), to every tab and batches their commands.
func (m Model) eachTab(msg tea.Msg) (Model, tea.Cmd) {
	m.tabs = append([]view(nil), m.tabs...)
	cmds := make([]tea.Cmd, len(m.tabs))
	for i, v := range m.tabs {
		m.tabs[i], cmds[i] = v.update(msg)
	}
	return m, tea.Batch(cmds...)
}

// eachView gives msg, what the root read for every view (a snapshot, the
// orphans), to every tab and every pushed view; a pushed view that closes
// (nil) takes the views above it along. Such a message starts no read.
func (m Model) eachView(msg tea.Msg) Model {
	m.tabs = append([]view(nil), m.tabs...)
	for i, v := range m.tabs {
		m.tabs[i], _ = v.update(msg)
	}
	stack := make([]view, 0, len(m.stack))
	for _, v := range m.stack {
		if v, _ = v.update(msg); v == nil {
			break
		}
		stack = append(stack, v)
	}
	m.stack = stack
	return m
}

// rereader is a view that, opened over one like it (top), has that one
// read again instead (with what v asks for) rather than pushed over it.
type rereader interface {
	rereads(top view) (view, bool)
}

// pushOrReread pushes v, or reads the view on top again when v says it
// is the same (rereader).
func (m Model) pushOrReread(v view) (Model, tea.Cmd) {
	if r, ok := v.(rereader); ok {
		if t, ok := r.rereads(m.top()); ok {
			return m.setTop(t).updateTop(loadMsg{})
		}
	}
	return m.push(v)
}

// pushMsg asks the root to open a view on top of the one on screen: a
// view returns it (pushCmd) for what enter opens.
type pushMsg struct{ open opener }

// opener builds the view to push from what the root holds, or says why it
// cannot be opened here ("" when it can).
type opener func(e openEnv) (view, string)

// openEnv is what a pushed view is built from: its id, the keys, the
// reads, the last snapshot, the timeout of a read and of an action's.
type openEnv struct {
	id            int
	keys          keyMap
	rd            Reads
	snap          *model.Snapshot
	timeout       time.Duration
	actionTimeout time.Duration
	// queries and queriesFrom are the saved queries of the configuration
	// file (Options.Queries); now is the screen's clock.
	queries     map[string]string
	queriesFrom string
	now         func() time.Time
}

// openEnv is what a view pushed now is built from.
func (m Model) openEnv() openEnv {
	return openEnv{id: m.views, keys: m.keys, rd: m.rd, snap: m.snap, timeout: m.opts.FetchTimeout, actionTimeout: m.opts.ActionTimeout,
		queries: m.opts.Queries, queriesFrom: m.opts.QueriesFrom, now: m.opts.Now}
}

// pushCmd is the command that opens the view o builds.
func pushCmd(o opener) tea.Cmd { return func() tea.Msg { return pushMsg{open: o} } }

// onPush opens the view a pushMsg asks for, or says why it cannot.
func (m Model) onPush(msg pushMsg) (Model, tea.Cmd) {
	v, why := msg.open(m.openEnv())
	if why != "" {
		return m.setStatus(why, true)
	}
	return m.push(v)
}
