package tui

import (
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/config"
)

// keyFields are the key map's single bindings by their place in it.
func keyFields(k keyMap) map[int]key.Binding {
	out := map[int]key.Binding{}
	for i, b := range k.bindings {
		out[i] = b
	}
	return out
}

// TestKeyNamesTied: each name of the configuration file (config.Actions)
// rebinds exactly one binding of the screen, whose default keys are the
// ones the file documents; and every binding but the view digits has a
// name.
func TestKeyNamesTied(t *testing.T) {
	defaults := keyFields(defaultKeyMap())
	named := map[int]string{}
	for _, a := range config.Actions() {
		rebound := keyFields(defaultKeyMap().rebind(map[string][]string{a.Name: {"f12"}}))
		var changed []int
		for f, b := range rebound {
			if !slices.Equal(b.Keys(), defaults[f].Keys()) {
				changed = append(changed, f)
			}
		}
		if len(changed) != 1 {
			t.Errorf("keys.%s rebinds %v, want one binding", a.Name, changed)
			continue
		}
		f := changed[0]
		named[f] = a.Name
		if got := rebound[f].Keys(); !slices.Equal(got, []string{"f12"}) && a.Name != "cancel" {
			t.Errorf("keys.%s = [f12] gives binding %d the keys %q", a.Name, f, got)
		}
		got := defaults[f].Keys()
		if a.Name == "cancel" {
			// q always cancels a dialog too (rebind).
			got = slices.DeleteFunc(slices.Clone(got), func(k string) bool { return k == "q" })
		}
		if !slices.Equal(got, a.Keys) {
			t.Errorf("keys.%s: the file documents %q, the screen's default for binding %d is %q", a.Name, a.Keys, f, got)
		}
	}
	for f := range defaults {
		if _, ok := named[f]; !ok {
			t.Errorf("the binding %d has no name in config.Actions: the file cannot rebind it", f)
		}
	}
}
