package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/workq-tui/workq-tui/model"
)

// confirmDialog shows an action's plan and waits for y, or n, esc or q to cancel.
type confirmDialog struct {
	action action
	// staleFor is set when the plan comes from a snapshot that could not be
	// refreshed: the operator sees how old it is.
	staleFor time.Duration
	// top is the first line of the plan shown when it does not fit: the
	// list keys scroll it.
	top int
	// blocked, when set, is why y does nothing: the plan is shown, and alt
	// is the choice there is instead.
	blocked string
	alt     *dialogChoice
	// id tells dialogs apart; clock is set each time the dialog comes on
	// screen, and read once it has been on screen for DialogReadTime:
	// only then does an answer count (dialog_read.go).
	id, clock int
	read      bool
	// rateTyped says digits are being typed into the rate (sets_rate.go).
	rateTyped bool
}

// dialogChoice is a dialog's other answer than y: its key (with the words
// the dialog shows for it) and what it does.
type dialogChoice struct {
	binding key.Binding
	run     func(m Model) (Model, tea.Cmd)
}

// footerLines are the dialog's last lines: why y does nothing and what to
// press instead, or y and cancel. Until the dialog has been on screen for
// DialogReadTime only cancel is offered: y does nothing yet, and its
// appearing tells the operator (and a test driving the terminal) that it
// now does.
func (d confirmDialog) footerLines(inner int, st styles) []string {
	if d.blocked == "" {
		lines := []string{""}
		if d.action.rerate != nil {
			lines = append(lines, fitLine(d.rateLine(), inner))
		}
		if !d.read {
			return append(lines, fitLine("n/esc/q: cancel", inner))
		}
		if d.alt != nil {
			h := d.alt.binding.Help()
			return append(lines, fitLine("y: run it   "+h.Key+": "+h.Desc+"   n/esc/q: cancel", inner))
		}
		return append(lines, fitLine("y: run it   n/esc/q: cancel", inner))
	}
	choice := "n/esc/q: cancel"
	if d.alt != nil && d.read {
		h := d.alt.binding.Help()
		choice = h.Key + ": " + h.Desc + "   " + choice
	}
	return []string{"", st.warn.Render(fitLine(d.blocked, inner)), fitLine(choice, inner)}
}

// renderDialog is the dialog box, centred in a width x height area: the
// plan as the command line prints it, inside a border. When the plan does
// not fit, its first lines and its closing paragraph (the totals and what
// the write re-checks) are kept, and a line says how many are left out.
func renderDialog(d confirmDialog, width, height int, st styles) string {
	boxWidth, inner := dialogWidths(width)
	var lines []string
	lines = append(lines, st.dialogTitle.Render(fitLine(d.action.title, inner)))
	if d.staleFor > 0 {
		lines = append(lines, st.warn.Render(fitLine(fmt.Sprintf("planned from data %s old (Redis is not answering)", model.FormatAge(d.staleFor)), inner)))
	}
	footer := d.footerLines(inner, st)
	body, room := d.planRoom(width, height)
	for _, l := range fitPlan(body, room, d.top) {
		lines = append(lines, fitLine(l, inner))
	}
	lines = append(lines, footer...)
	box := st.dialog.Width(boxWidth - 2).Render(strings.Join(lines, "\n"))
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box)
}

// dialogWidths are the box's width in a screen of width and the text's
// inside its border and padding.
func dialogWidths(width int) (box, inner int) {
	box = min(max(width-4, 20), 100)
	return box, box - 4
}

// planRoom is the plan as the dialog wraps it and how many lines of it
// the box holds in a body of width x height.
func (d confirmDialog) planRoom(width, height int) ([]string, int) {
	_, inner := dialogWidths(width)
	head := 1
	if d.staleFor > 0 {
		head++
	}
	foot := 2
	if d.blocked != "" || d.action.rerate != nil {
		foot = 3
	}
	return wrapPlan(d.action.body, inner), height - 2 - head - foot // 2 border lines
}

// scrolled is the dialog after a list key: the plan moved by a line, a
// page or to an end, within what it can show in a body of width x height;
// ok is false for any other key.
func (d confirmDialog) scrolled(msg tea.KeyMsg, k keyMap, width, height int) (confirmDialog, bool) {
	body, room := d.planRoom(width, height)
	if len(body) <= room {
		return d, false
	}
	tail, scroll := planParts(body, room)
	// The lines that scroll: keep of them at a time, above the line
	// that says where they are and the closing paragraph.
	keep := max(room-1-len(tail), 1)
	top, ok := scrolled(d.top, msg, k, scroll+keep, keep)
	d.top = min(top, scroll)
	return d, ok
}

// planParts is how a plan that does not fit in room lines is shown: its
// closing paragraph (the lines after the last blank one) stays while that
// takes at most half the room, and the rest scrolls; scroll is how far.
func planParts(body []string, room int) (tail []string, scroll int) {
	for i := len(body) - 1; i > 0; i-- {
		if body[i] == "" {
			tail = body[i+1:]
			break
		}
	}
	if len(tail) > room/2 {
		tail = nil
	}
	keep := max(room-1-len(tail), 0)
	return tail, max(len(body)-len(tail)-keep, 0)
}

// fitPlan shortens a plan to at most room lines: from its line top, as
// many as fit, a line saying where that is and how to scroll, and its
// closing paragraph.
func fitPlan(body []string, room, top int) []string {
	if len(body) <= room {
		return body
	}
	if room <= 0 {
		return nil
	}
	tail, scroll := planParts(body, room)
	keep := max(room-1-len(tail), 0)
	top = min(max(top, 0), scroll)
	out := append([]string{}, body[top:top+keep]...)
	head := len(body) - len(tail)
	if top == 0 {
		out = append(out, fmt.Sprintf("… and %d more lines (j/k, pgdn: scroll)", head-keep))
	} else {
		out = append(out, fmt.Sprintf("… lines %d-%d of %d (j/k, pgup/pgdn: scroll)", top+1, top+keep, head))
	}
	return append(out, tail...)
}

// wrapPlan wraps the plan's lines that are wider than the box at word
// boundaries; a continuation line is indented two more than its line.
func wrapPlan(body []string, width int) []string {
	var out []string
	for _, l := range body {
		if lineWidth(l) <= width {
			out = append(out, l)
			continue
		}
		text := strings.TrimLeft(l, " ")
		indent := strings.Repeat(" ", len(l)-len(text))
		w := max(width-len(indent)-2, 10)
		for i, part := range strings.Split(ansi.Wrap(text, w, ""), "\n") {
			if i == 0 {
				out = append(out, indent+part)
			} else {
				out = append(out, indent+"  "+strings.TrimLeft(part, " "))
			}
		}
	}
	return out
}
