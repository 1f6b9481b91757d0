package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// filterInput is the one-line text the '/' key opens. It is deliberately
// small (type, backspace, ctrl+u, paste): bubbles/textinput would pull a
// clipboard module in for nothing.
type filterInput struct {
	value []rune
}

func (f filterInput) Value() string { return string(f.value) }

func (f filterInput) set(s string) filterInput {
	f.value = []rune(s)
	return f
}

// update applies a key; enter and esc are handled by the caller.
func (f filterInput) update(msg tea.KeyMsg) filterInput {
	switch msg.Type {
	case tea.KeyBackspace, tea.KeyCtrlH:
		if len(f.value) > 0 {
			f.value = f.value[:len(f.value)-1]
		}
	case tea.KeyCtrlU:
		f.value = nil
	case tea.KeyCtrlW:
		i := len(f.value)
		for i > 0 && f.value[i-1] == ' ' {
			i--
		}
		for i > 0 && f.value[i-1] != ' ' {
			i--
		}
		f.value = f.value[:i]
	case tea.KeySpace:
		f.value = append(f.value, ' ')
	case tea.KeyRunes:
		for _, r := range msg.Runes {
			if textsafe.Clean(string(r)) == string(r) && len(f.value) < 200 {
				f.value = append(f.value, r)
			}
		}
	}
	return f
}

func (f filterInput) view(st styles) string {
	return st.accent.Render("/") + textsafe.Clean(string(f.value)) + st.selected.Render(" ")
}
