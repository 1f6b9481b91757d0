package tui

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// viewKeys are the keys 1, 2, … that jump to the views, in tab order, each
// named by its view (at most nine).
func (m Model) viewKeys() []key.Binding {
	var out []key.Binding
	for i, v := range m.tabs {
		if i == 9 {
			break
		}
		n := strconv.Itoa(i + 1)
		out = append(out, key.NewBinding(key.WithKeys(n), key.WithHelp(n, v.title())))
	}
	return out
}

// onViewKey handles the keys that move between views outside a dialog or
// the filter: a digit jumps to its view (closing what is pushed on the
// focused one); ok is false for any other key.
func (m Model) onViewKey(msg tea.KeyMsg) (Model, bool) {
	for i, b := range m.viewKeys() {
		if key.Matches(msg, b) {
			m.stack = nil
			m.tab = i
			return m, true
		}
	}
	return m, false
}
