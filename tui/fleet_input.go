package tui

import (
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// onKeys takes the runes of one message as key presses one after the
// other ("jjj" typed fast); a key that opens a target's screen ends the
// burst, as a dialog ends one in a target's screen.
func (f Fleet) onKeys(msg tea.KeyMsg) (Fleet, tea.Cmd) {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste {
		return f.onKey(msg)
	}
	var cmds []tea.Cmd
	for _, r := range msg.Runes {
		var cmd tea.Cmd
		f, cmd = f.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
		if f.open >= 0 {
			break
		}
	}
	return f, tea.Batch(cmds...)
}

// onKey handles a key in the fleet view.
func (f Fleet) onKey(msg tea.KeyMsg) (Fleet, tea.Cmd) {
	if msg.Type == tea.KeyCtrlC {
		return f, tea.Quit
	}
	switch {
	case key.Matches(msg, f.keys.Quit):
		return f.quit()
	case key.Matches(msg, f.keys.Help):
		f.help.ShowAll = !f.help.ShowAll
		return f, nil
	case key.Matches(msg, f.keys.Refresh):
		return f.refreshAll()
	case key.Matches(msg, f.keys.Open):
		if len(f.children) == 0 {
			return f, nil
		}
		return f.show(f.selected)
	}
	l, ok := f.list.navigate(msg, f.keys.nav, len(f.order), f.listHeight())
	if ok && len(f.order) > 0 {
		f.list = l
		f.selected = f.order[l.cursor]
	}
	return f, nil
}

// onChildKey handles a key while a target's screen is shown: esc goes back
// to the fleet and q quits the fleet when the screen has nothing open (no
// dialog, filter, command line or detail view); every other key is the
// screen's.
func (f Fleet) onChildKey(msg tea.KeyMsg) (Fleet, tea.Cmd) {
	if msg.Type == tea.KeyCtrlC {
		return f, tea.Quit
	}
	c := f.children[f.open]
	if c.dialog == nil && !c.filtering && !c.cmdline.open {
		switch {
		case key.Matches(msg, f.keys.Back) && !c.opened() && c.currentFilter() == "":
			return f.show(-1)
		case key.Matches(msg, f.keys.Quit):
			return f.quit()
		}
	}
	return f.toChild(f.open, msg)
}

// show shows target i's screen, or the fleet view when i is -1. The
// other screens are hidden: a hidden screen polls only what the fleet
// view uses (no workers), and the one shown reads what its view needs.
func (f Fleet) show(i int) (Fleet, tea.Cmd) {
	f.children = slices.Clone(f.children)
	var cmds []tea.Cmd
	for c := range f.children {
		if hidden := c != i; f.children[c].hidden != hidden {
			next, cmd := f.children[c].setHidden(hidden)
			next = next.relayout()
			f.children[c] = &next
			cmds = append(cmds, tagCmd(c, cmd))
		}
	}
	f.open = i
	return f, tea.Batch(cmds...)
}

// quit ends the program unless an action runs on some target: quitting
// then would lose its result and its audit line.
func (f Fleet) quit() (Fleet, tea.Cmd) {
	if i := f.anyRunning(); i >= 0 {
		c := f.children[i]
		return f.setStatus(c.opts.Target+": "+c.running.title+" is running: wait for it, or ctrl+c to quit anyway", true)
	}
	return f, tea.Quit
}

// refreshAll polls every target now; a target whose poll runs gets a new
// one when that returns (still one at a time per target).
func (f Fleet) refreshAll() (Fleet, tea.Cmd) {
	f.children = slices.Clone(f.children)
	cmds := make([]tea.Cmd, 0, len(f.children))
	for i, c := range f.children {
		next, cmd := c.refresh()
		next = next.relayout()
		f.children[i] = &next
		cmds = append(cmds, tagCmd(i, cmd))
	}
	return f, tea.Batch(cmds...)
}
