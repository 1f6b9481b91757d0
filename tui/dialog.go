package tui

import (
	"fmt"
	"strings"
	"time"

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
}

// renderDialog is the dialog box, centred in a width x height area: the
// plan as the command line prints it, inside a border. When the plan does
// not fit, its first lines and its closing paragraph (the totals and what
// the write re-checks) are kept, and a line says how many are left out.
func renderDialog(d confirmDialog, width, height int, st styles) string {
	boxWidth := min(max(width-4, 20), 100)
	inner := boxWidth - 4 // border and padding
	var lines []string
	lines = append(lines, st.dialogTitle.Render(fitLine(d.action.title, inner)))
	if d.staleFor > 0 {
		lines = append(lines, st.warn.Render(fitLine(fmt.Sprintf("planned from data %s old (Redis is not answering)", model.FormatAge(d.staleFor)), inner)))
	}
	footer := []string{"", fitLine("y: run it   n/esc/q: cancel", inner)}
	room := height - 2 - len(lines) - len(footer) // 2 border lines
	for _, l := range fitPlan(wrapPlan(d.action.body, inner), room) {
		lines = append(lines, fitLine(l, inner))
	}
	lines = append(lines, footer...)
	box := st.dialog.Width(boxWidth - 2).Render(strings.Join(lines, "\n"))
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box)
}

// fitPlan shortens a plan to at most room lines: its head, a line saying
// how many lines are left out, and its closing paragraph (the lines after
// the last blank one) while that takes at most half the room.
func fitPlan(body []string, room int) []string {
	if len(body) <= room {
		return body
	}
	if room <= 0 {
		return nil
	}
	var tail []string
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
	out := append([]string{}, body[:keep]...)
	out = append(out, fmt.Sprintf("… and %d more lines", len(body)-keep-len(tail)))
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
