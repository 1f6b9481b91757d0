package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// DialogReadTime is how long a confirm dialog must have been on screen
// before its y (or its other answer) counts. Keys that arrive in one read
// of the terminal (typed ahead, pasted, sent by a script) reach Update one
// after the other within microseconds, before the terminal has drawn
// anything; bubbletea draws a frame at most every 1/60 s. A quarter of a
// second is far longer than either, and shorter than anyone takes to
// read a plan.
const DialogReadTime = 250 * time.Millisecond

// dialogReadMsg says that the dialog that came on screen as clock has
// been on screen for DialogReadTime.
type dialogReadMsg struct{ clock int }

// openDialog opens d as a new dialog. Its answer counts once it has been
// drawn and on screen for DialogReadTime (dialogOnScreen starts the clock
// after this update, when the frame with it is drawn).
func (m Model) openDialog(d confirmDialog) Model {
	m.dialogSeq++
	d.id = m.dialogSeq
	d.clock, d.read = 0, false
	m.dialog = &d
	m.status = statusLine{} // a hint from before does not belong to the dialog
	return m
}

// onScreen is the id of the dialog the next frame draws, or 0: none open,
// the screen hidden behind a fleet's view, or too small to draw it.
func (m Model) onScreen() int {
	if m.dialog == nil || m.hidden || m.lay.tooSmall {
		return 0
	}
	return m.dialog.id
}

// dialogOnScreen starts the dialog's clock when it has just come on
// screen (before was onScreen before this update): opened, shown again
// behind a fleet's view, or the terminal grown back to a size that draws
// it. A dialog not on screen is not read: it counts again only after it
// has been back for DialogReadTime. View runs after every update, before
// the next message, so the frame with the dialog is drawn before the
// clock's message arrives.
func (m Model) dialogOnScreen(before int) (Model, tea.Cmd) {
	if m.dialog == nil {
		return m, nil
	}
	now := m.onScreen()
	switch {
	case now == 0 && (m.dialog.read || m.dialog.clock != 0):
		d := *m.dialog
		d.read, d.clock = false, 0
		m.dialog = &d
	case now != 0 && now != before:
		m.dialogSeq++
		d := *m.dialog
		d.read, d.clock = false, m.dialogSeq
		m.dialog = &d
		clock := d.clock
		return m, m.after(DialogReadTime, func(time.Time) tea.Msg { return dialogReadMsg{clock: clock} })
	}
	return m, nil
}

// onDialogRead makes the dialog's answer count, when it is the same
// dialog, still on screen since its clock started.
func (m Model) onDialogRead(msg dialogReadMsg) Model {
	if m.dialog == nil || m.dialog.clock != msg.clock || m.onScreen() == 0 {
		return m
	}
	d := *m.dialog
	d.read = true
	m.dialog = &d
	return m
}

// unreadAnswer is the status when an answer came before the dialog had
// been on screen: it was typed before the plan could be read.
func (m Model) unreadAnswer(key string) (Model, tea.Cmd) {
	return m.setStatus(fmt.Sprintf("%s ignored: pressed before the dialog was on screen; read it, then press %s", key, key), true)
}
