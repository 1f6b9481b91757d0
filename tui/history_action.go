package tui

// This file owns the action view: enter on an action of the history shows
// what it changed, call by call, as `workq-tui history ID` prints it
// (reaper.RenderAction), in a scrollable viewport. U plans its undo from
// here too.

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/reaper"
)

// historyActionMsg carries the journal of one action for view view.
type historyActionMsg struct {
	view, seq int
	action    *journal.Action
	err       error
}

func historyActionCmd(r HistoryReader, view, seq int, id string, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		a, err := r.HistoryAction(ctx, id)
		return historyActionMsg{view: view, seq: seq, action: a, err: err}
	}
}

// actionView is what one action changed.
type actionView struct {
	id      int
	km      keyMap
	reader  HistoryReader
	timeout time.Duration
	// sum is the action as the history listed it (its state among them).
	sum journal.Summary

	loader
	action *journal.Action

	vp            viewport.Model
	width, height int
}

func newActionView(id int, sum journal.Summary, k keyMap, r HistoryReader, timeout time.Duration) actionView {
	return actionView{id: id, km: k, reader: r, timeout: timeout, sum: sum, vp: viewport.New(0, 0)}
}

func (a actionView) title() string { return "action " + textsafe.Clean(a.sum.ID) }

// pickedAction is the action shown: U undoes it from here as from the list.
func (a actionView) pickedAction() (journal.Summary, bool) { return a.sum, true }

func (a actionView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case loadMsg:
		a.loader = a.start()
		return a, historyActionCmd(a.reader, a.id, a.seq, a.sum.ID, a.timeout)
	case historyActionMsg:
		var ok bool
		if a.loader, ok = a.take(a.id, msg.view, msg.seq, msg.err); !ok {
			return a, nil
		}
		a.action = msg.action
		if msg.err == nil {
			a = a.fill()
			a.vp.GotoTop()
		}
		return a, nil
	case historyMsg:
		// The history read again after an action: the state it lists
		// (undone or not) is this view's too.
		for _, s := range msg.list.Actions {
			if s.ID == a.sum.ID && msg.err == nil {
				a.sum = s
				a = a.fill()
			}
		}
		return a, nil
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, a.km.get(actions.Up)):
			a.vp.ScrollUp(1)
		case key.Matches(msg, a.km.get(actions.Down)):
			a.vp.ScrollDown(1)
		case key.Matches(msg, a.km.get(actions.PageUp)):
			a.vp.PageUp()
		case key.Matches(msg, a.km.get(actions.PageDown)):
			a.vp.PageDown()
		case key.Matches(msg, a.km.get(actions.Top)):
			a.vp.GotoTop()
		case key.Matches(msg, a.km.get(actions.Bottom)):
			a.vp.GotoBottom()
		}
	}
	return a, nil
}

// fill renders the action into the viewport: plain text, cleaned, each
// line cut to the width.
func (a actionView) fill() actionView {
	if a.action == nil {
		return a
	}
	var b strings.Builder
	reaper.RenderAction(&b, a.action, a.sum.State, "")
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = fitLine(textsafe.Clean(l), a.width)
	}
	a.vp.SetContent(strings.Join(lines, "\n"))
	return a
}

func (a actionView) setSize(w, h int) view {
	if a.width == w && a.height == h {
		return a
	}
	a.width, a.height = w, h
	a.vp.Width, a.vp.Height = w, max(h, 1)
	return a.fill()
}

// keys: esc goes back to the list; enter and the filter do nothing.
func (a actionView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, false)
	k.enable(actions.Filter, false)
	k.enable(actions.Back, true)
	k.setHelp(actions.Back, "esc", "history")
	return k
}

func (a actionView) render(c renderContext) string {
	switch {
	case a.err != nil:
		return fitBlock(c.st.statusErr.Render("could not read the journal of "+textsafe.Clean(a.sum.ID)+": "+oneLine(a.err.Error())), a.width, a.height)
	case a.action == nil:
		return fitBlock(c.st.faint.Render("reading the journal of "+textsafe.Clean(a.sum.ID)+"…"), a.width, a.height)
	}
	return fitBlock(a.vp.View(), a.width, a.height)
}
