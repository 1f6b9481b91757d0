package tui

import (
	"cmp"
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// notInTable are the actions the actions table does not run: the root's
// navigation and global keys, the keys the Jobs view reads itself and the
// confirmation dialog's. Every other action needs its entry there.
func notInTable() []actions.ID {
	return []actions.ID{
		actions.Up, actions.Down, actions.PageUp, actions.PageDown, actions.Top, actions.Bottom,
		actions.NextView, actions.PrevView, actions.Enter, actions.Back, actions.Filter,
		actions.Refresh, actions.Help, actions.Command, actions.Quit,
		actions.NextSet, actions.SetsOrder, actions.Mark, actions.Summary, actions.SetsRequeue,
		actions.SetsDelete, actions.MarkAll, actions.SetsEdit, actions.SetsDuplicate,
		actions.Confirm, actions.Cancel, actions.ForceRequeue,
	}
}

// TestEveryActionHasItsBinding: each action of the one list (the names
// the configuration file binds, which its docs test finds in
// docs/config.md) has its binding in the key map, with the list's default
// keys, label and shown keys; and each action but those the root, the
// Jobs view or the dialog reads itself has exactly one entry in the
// actions table (bindings.go), each entry a listed action.
func TestEveryActionHasItsBinding(t *testing.T) {
	k := defaultKeyMap()
	for _, a := range actions.All() {
		b := k.get(a.ID)
		want := a.Keys
		if a.ID == actions.Cancel {
			want = append(slices.Clone(want), "q")
		}
		if !slices.Equal(b.Keys(), want) || b.Help().Desc != a.Label {
			t.Errorf("%s: keys %q help %q, want %q %q", a.Name, b.Keys(), b.Help().Desc, want, a.Label)
		}
		shown := a.Shown
		if shown == "" {
			shown = keyLabel(want)
		}
		if b.Help().Key != shown {
			t.Errorf("%s: shown as %q, want %q", a.Name, b.Help().Key, shown)
		}
		if b.Enabled() != (a.Group != actions.Jobs) {
			t.Errorf("%s: enabled %v by default in group %s", a.Name, b.Enabled(), a.Group)
		}
	}
	entries := map[actions.ID]int{}
	for _, ab := range actionBindings() {
		if ab.id < 0 || ab.id >= actions.Count {
			t.Errorf("the actions table's %q entry runs the action %d, which is not listed", ab.name, ab.id)
			continue
		}
		entries[ab.id]++
	}
	for _, a := range actions.All() {
		elsewhere := slices.Contains(notInTable(), a.ID)
		switch n := entries[a.ID]; {
		case elsewhere && n > 0:
			t.Errorf("%s has an entry in the actions table and is read elsewhere too", a.Name)
		case !elsewhere && n != 1:
			t.Errorf("%s has %d entries in the actions table, want 1", a.Name, n)
		}
	}
}

// TestHelpAndFooterListEveryPlacedAction: '?' shows every action that
// internal/actions places in a column, once, in that column and ordered
// by row, and the footer every action it places there, in order.
func TestHelpAndFooterListEveryPlacedAction(t *testing.T) {
	k := defaultKeyMap()
	help := k.FullHelp()
	views := help[len(help)-1]
	help = help[:len(help)-1]
	if len(views) != len(k.Views) {
		t.Errorf("the help's last column has %d keys, the views %d", len(views), len(k.Views))
	}
	var placed, inFooter []actions.Action
	for _, a := range actions.All() {
		if a.Column != 0 {
			placed = append(placed, a)
		}
		if a.Footer != 0 {
			inFooter = append(inFooter, a)
		}
	}
	slices.SortFunc(placed, func(a, b actions.Action) int { return cmp.Or(a.Column-b.Column, a.Row-b.Row) })
	var got []key.Binding
	for c, col := range help {
		for r, b := range col {
			if len(got) < len(placed) && placed[len(got)].Column != c+1 {
				a := placed[len(got)]
				t.Errorf("the help's column %d row %d is %q, internal/actions puts %s in column %d", c+1, r+1, b.Help().Desc, a.Name, a.Column)
			}
			got = append(got, b)
		}
	}
	if len(got) != len(placed) {
		t.Fatalf("the help lists %d actions, internal/actions places %d", len(got), len(placed))
	}
	for i, a := range placed {
		if !sameKeys(got[i], k.get(a.ID)) {
			t.Errorf("%s is not at its place %d of the help: %q is", a.Name, i, got[i].Help().Desc)
		}
	}
	slices.SortFunc(inFooter, func(a, b actions.Action) int { return a.Footer - b.Footer })
	short := k.ShortHelp()
	if len(short) != len(inFooter) {
		t.Fatalf("the footer lists %d actions, internal/actions places %d", len(short), len(inFooter))
	}
	for i, a := range inFooter {
		if !sameKeys(short[i], k.get(a.ID)) {
			t.Errorf("%s is not at its place %d of the footer: %q is", a.Name, i, short[i].Help().Desc)
		}
	}
}

func sameKeys(a, b key.Binding) bool {
	return slices.Equal(a.Keys(), b.Keys()) && a.Help() == b.Help()
}

// TestRebindKeepsLabelAndState: a key the file gives replaces the
// default of exactly the action it names, keeping its label and whether
// it is enabled.
func TestRebindKeepsLabelAndState(t *testing.T) {
	defaults := defaultKeyMap()
	for _, a := range actions.All() {
		k := defaultKeyMap().rebind(map[string][]string{a.Name: {"ctrl+z"}})
		for _, o := range actions.All() {
			b, def := k.get(o.ID), defaults.get(o.ID)
			if o.ID != a.ID {
				if !slices.Equal(b.Keys(), def.Keys()) {
					t.Errorf("rebinding %s changed %s to %q", a.Name, o.Name, b.Keys())
				}
				continue
			}
			if b.Keys()[0] != "ctrl+z" || b.Help().Desc != a.Label || b.Enabled() != def.Enabled() {
				t.Errorf("rebound %s: keys %q help %q enabled %v", o.Name, b.Keys(), b.Help().Desc, b.Enabled())
			}
		}
	}
}
