package tui

import (
	"cmp"
	"slices"

	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// keyMap is every key binding of the screen. Bindings are data: the root
// Update matches on them and the help line is rendered from them, so a
// binding that is disabled (an action in read-only mode, or one that does
// not apply right now) is both inert and absent from the help. Each action
// of internal/actions has one binding, at its ID, with the list's default
// keys and label; the list places it in the help and the footer too.
//
// A keyMap is a value: a copy's bindings change apart from the original's.
type keyMap struct {
	// bindings are the actions' bindings, each at its ID.
	bindings [actions.Count]key.Binding
	// Views are 1, 2, …: one per view, its help the view's name (set by
	// keyMap from the tabs), listed by '?'.
	Views []key.Binding
	// footer and help are the actions of ShortHelp and FullHelp's
	// columns, in order, as internal/actions places them; read only.
	footer []actions.ID
	help   [][]actions.ID
}

// defaultKeyMap is every action's default keys and help, from the one
// list of actions (internal/actions). The Jobs view's own keys start
// disabled: that view enables them.
func defaultKeyMap() keyMap {
	var k keyMap
	all := actions.All()
	for _, a := range all {
		b := newBinding(a.Keys, a.Label, a.Name)
		if a.Shown != "" {
			b.SetHelp(a.Shown, a.Label)
		}
		b.SetEnabled(a.Group != actions.Jobs)
		k.bindings[a.ID] = b
	}
	k.footer, k.help = helpLayout(all)
	return k
}

// helpLayout is the footer's actions and the help's columns, each in the
// order the list places them.
func helpLayout(all []actions.Action) (footer []actions.ID, help [][]actions.ID) {
	byFooter := slices.DeleteFunc(slices.Clone(all), func(a actions.Action) bool { return a.Footer == 0 })
	slices.SortFunc(byFooter, func(a, b actions.Action) int { return cmp.Compare(a.Footer, b.Footer) })
	for _, a := range byFooter {
		footer = append(footer, a.ID)
	}
	byPlace := slices.DeleteFunc(slices.Clone(all), func(a actions.Action) bool { return a.Column == 0 })
	slices.SortFunc(byPlace, func(a, b actions.Action) int {
		return cmp.Or(cmp.Compare(a.Column, b.Column), cmp.Compare(a.Row, b.Row))
	})
	for i, a := range byPlace {
		if i == 0 || a.Column != byPlace[i-1].Column {
			help = append(help, nil)
		}
		help[len(help)-1] = append(help[len(help)-1], a.ID)
	}
	return footer, help
}

// get is the binding of the action id.
func (k keyMap) get(id actions.ID) key.Binding { return k.bindings[id] }

// enable turns the action id's binding on or off.
func (k *keyMap) enable(id actions.ID, on bool) { k.bindings[id].SetEnabled(on) }

// setHelp shows the action id's binding in the help as keys and desc.
func (k *keyMap) setHelp(id actions.ID, keys, desc string) { k.bindings[id].SetHelp(keys, desc) }

// set replaces the action id's binding with b.
func (k *keyMap) set(id actions.ID, b key.Binding) { k.bindings[id] = b }

// ShortHelp is the one-line help at the bottom.
func (k keyMap) ShortHelp() []key.Binding {
	out := make([]key.Binding, len(k.footer))
	for i, id := range k.footer {
		out[i] = k.bindings[id]
	}
	return out
}

// FullHelp is the help shown by '?': the actions' columns, then the
// views'.
func (k keyMap) FullHelp() [][]key.Binding {
	out := make([][]key.Binding, 0, len(k.help)+1)
	for _, col := range k.help {
		c := make([]key.Binding, len(col))
		for i, id := range col {
			c[i] = k.bindings[id]
		}
		out = append(out, c)
	}
	return append(out, k.Views)
}

// dialogKeys is the help while a confirm dialog is open.
type dialogKeys struct {
	k keyMap
	d confirmDialog
}

func (d dialogKeys) ShortHelp() []key.Binding {
	// q cancels here: a reflex q over a plan must not leave the screen.
	if d.d.blocked != "" {
		if d.d.alt != nil {
			return []key.Binding{d.d.alt.binding, d.k.get(actions.Cancel)}
		}
		return []key.Binding{d.k.get(actions.Cancel)}
	}
	if d.d.alt != nil {
		return []key.Binding{d.k.get(actions.Confirm), d.d.alt.binding, d.k.get(actions.Cancel)}
	}
	return []key.Binding{d.k.get(actions.Confirm), d.k.get(actions.Cancel)}
}
func (d dialogKeys) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// filterKeys is the help while the filter is being typed.
type filterKeys struct{}

func (filterKeys) ShortHelp() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
	}
}
func (f filterKeys) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }
