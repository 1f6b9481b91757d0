package tui

import (
	"reflect"
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/config"
)

// keyFields are the key map's single bindings by field name.
func keyFields(k keyMap) map[string]key.Binding {
	out := map[string]key.Binding{}
	v := reflect.ValueOf(k)
	for i := range v.NumField() {
		if b, ok := v.Field(i).Interface().(key.Binding); ok {
			out[v.Type().Field(i).Name] = b
		}
	}
	return out
}

// TestKeyNamesTied: a key's name and default are written in three places
// (config.Actions, the key map's defaults, rebind's names). Each name of
// the configuration file rebinds exactly one binding of the screen, whose
// default keys are the ones the file documents; and every binding but the
// view digits has a name.
func TestKeyNamesTied(t *testing.T) {
	defaults := keyFields(defaultKeyMap())
	named := map[string]string{}
	for _, a := range config.Actions() {
		rebound := keyFields(defaultKeyMap().rebind(map[string][]string{a.Name: {"f12"}}))
		var changed []string
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
			t.Errorf("keys.%s = [f12] gives %s the keys %q", a.Name, f, got)
		}
		got := defaults[f].Keys()
		if a.Name == "cancel" {
			// q always cancels a dialog too (rebind).
			got = slices.DeleteFunc(slices.Clone(got), func(k string) bool { return k == "q" })
		}
		if !slices.Equal(got, a.Keys) {
			t.Errorf("keys.%s: the file documents %q, the screen's default for %s is %q", a.Name, a.Keys, f, got)
		}
	}
	for f := range defaults {
		if _, ok := named[f]; !ok {
			t.Errorf("the binding %s has no name in config.Actions: the file cannot rebind it", f)
		}
	}
}
