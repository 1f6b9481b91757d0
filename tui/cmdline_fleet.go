package tui

// This file owns :target, the command line's way between the targets of
// a fleet: the target screen asks, the fleet shows the target named.

import (
	"fmt"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// switchTargetMsg asks the fleet to show the target of that name.
type switchTargetMsg struct{ name string }

// targetCommand is :target NAME, there only on a fleet's target screen.
func targetCommand() command {
	return command{
		name: "target",
		args: func(m Model) []string {
			var out []string
			for _, n := range m.cmdline.targets {
				if typeable(n) {
					out = append(out, n)
				}
			}
			return out
		},
		needs: func(m Model) string {
			if len(m.cmdline.targets) == 0 {
				return ":target switches between the targets of a fleet (workq-tui --fleet)"
			}
			return ""
		},
		run: func(m Model, args []string) (Model, tea.Cmd) {
			if len(args) == 0 {
				return m.setStatus(":target needs a target's name", true)
			}
			for _, n := range m.cmdline.targets {
				if n == args[0] {
					return m, func() tea.Msg { return switchTargetMsg{name: n} }
				}
			}
			return m.setStatus(fmt.Sprintf("no target %q", textsafe.Clean(args[0])), true)
		},
	}
}

// withTargetNames gives every target screen the names :target completes.
func (f Fleet) withTargetNames() Fleet {
	names := make([]string, len(f.children))
	for i, c := range f.children {
		names[i] = c.opts.Target
	}
	f.children = slices.Clone(f.children)
	for i, c := range f.children {
		next := *c
		next.cmdline.targets = names
		f.children[i] = &next
	}
	return f
}

// switchTarget shows the target of that name.
func (f Fleet) switchTarget(name string) (Fleet, tea.Cmd) {
	for i, c := range f.children {
		if c.opts.Target == name {
			return f.show(i)
		}
	}
	return f, nil
}
