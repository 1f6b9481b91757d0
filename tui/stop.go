package tui

// This file owns the stop of a running bulk action: esc or ctrl+c while it
// runs cancels its context, and the executor stops between two script
// calls after reading the replies of those in flight (each call is atomic
// and re-checks its members), so nothing is lost or doubled. The result
// says what moved and what is left; the same action again finishes it. A
// second ctrl+c quits at once, as ever.

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// actionContext is the context a confirmed action runs in, and the stop
// the running action keeps when the action can stop midway.
func actionContext(a action) (context.Context, context.CancelFunc) {
	if !a.stoppable {
		return context.Background(), nil
	}
	return context.WithCancel(context.Background())
}

// stopKey takes esc or ctrl+c while a stoppable action runs; ok is false
// for any other key, or when nothing can stop.
func (m Model) stopKey(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	r := m.running
	if r == nil || r.stop == nil || m.dialog != nil || (msg.Type != tea.KeyEsc && msg.Type != tea.KeyCtrlC) {
		return m, nil, false
	}
	if msg.Type == tea.KeyEsc && (m.cmdline.open || m.filtering) {
		return m, nil, false // esc closes what is open first
	}
	if r.stopping {
		if msg.Type == tea.KeyCtrlC {
			return m, nil, false // a second ctrl+c quits
		}
		mm, cmd := m.setStatus("stopping after the call in flight… (ctrl+c again quits now)", false)
		return mm, cmd, true
	}
	stopped := *r
	stopped.stopping = true
	stopped.stop()
	m.running = &stopped
	mm, cmd := m.setStatus("stopping "+r.title+" after the call in flight…", false)
	return mm, cmd, true
}
