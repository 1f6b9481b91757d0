package tui

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// fleetKeyMap is the fleet view's key bindings. The fleet view itself
// writes nothing: the actions are in each target's screen, where its own
// key map (and read-only mode) applies.
type fleetKeyMap struct {
	// nav holds the cursor keys, shared with the lists of a target screen.
	nav                 keyMap
	Open, Back          key.Binding
	Refresh, Help, Quit key.Binding
}

func defaultFleetKeyMap() fleetKeyMap {
	return fleetKeyMap{
		nav:     defaultKeyMap(),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open target")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "fleet")),
		Refresh: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh all")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the fleet view's help line.
func (k fleetKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.nav.get(actions.Up), k.nav.get(actions.Down), k.Open, k.Refresh, k.Help, k.Quit}
}

// FullHelp is the help shown by '?'.
func (k fleetKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.nav.get(actions.Up), k.nav.get(actions.Down), k.nav.get(actions.PageUp), k.nav.get(actions.PageDown), k.nav.get(actions.Top), k.nav.get(actions.Bottom)},
		{k.Open, k.Refresh, k.Help, k.Quit},
	}
}
