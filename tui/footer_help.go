package tui

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// shortHelpFit is the one-line help narrowed to width: the keys of the
// view go first, from the end, so "? help" and "q quit" always stay.
func (m Model) shortHelpFit(k keyMap) string {
	var front []key.Binding
	for _, b := range k.ShortHelp() {
		if b.Enabled() && !sameBinding(b, k.get(actions.Help)) && !sameBinding(b, k.get(actions.Quit)) {
			front = append(front, b)
		}
	}
	tail := []key.Binding{k.get(actions.Help), k.get(actions.Quit)}
	h := m.help
	h.Width = 0 // measured here, not cut with an ellipsis
	for n := len(front); n > 0; n-- {
		if s := h.ShortHelpView(append(front[:n:n], tail...)); lineWidth(s) <= m.width {
			return s
		}
	}
	return m.help.ShortHelpView(tail)
}

func sameBinding(a, b key.Binding) bool {
	return a.Help() == b.Help()
}
