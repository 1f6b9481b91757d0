package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/workq-tui/workq-tui/model"
)

// confirmDialog shows an action's plan and waits for y or n/esc.
type confirmDialog struct {
	action action
	// staleFor is set when the plan comes from a snapshot that could not be
	// refreshed: the operator sees how old it is.
	staleFor time.Duration
}

// renderDialog is the dialog box, centred in a width x height area. Plan
// lines that do not fit are summarised in a last line.
func renderDialog(d confirmDialog, width, height int, st styles) string {
	boxWidth := min(max(width-4, 20), 100)
	inner := boxWidth - 4 // border and padding
	var lines []string
	lines = append(lines, st.dialogTitle.Render(fitLine(d.action.title, inner)))
	if d.staleFor > 0 {
		lines = append(lines, st.warn.Render(fitLine(fmt.Sprintf("planned from data %s old (Redis is not answering)", model.FormatAge(d.staleFor)), inner)))
	}
	note := d.action.note
	if note == "" {
		note = "The reaper re-checks every pool before it changes it."
	}
	footer := []string{"", fitLine(note, inner), fitLine("y: run it   n/esc: cancel", inner)}
	room := height - 2 - len(lines) - len(footer) // 2 border lines
	body := d.action.body
	if room < len(body) {
		keep := max(room-1, 0)
		rest := len(body) - keep
		body = append(append([]string{}, body[:keep]...), fmt.Sprintf("… and %d more lines", rest))
		if room <= 0 {
			body = nil
		}
	}
	for _, l := range body {
		lines = append(lines, fitLine(l, inner))
	}
	lines = append(lines, footer...)
	box := st.dialog.Width(boxWidth - 2).Render(strings.Join(lines, "\n"))
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box)
}
