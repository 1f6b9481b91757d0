package tui

import (
	"reflect"
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// TestEveryActionHasItsBinding: each action of the one list (the names
// the configuration file binds, which its docs test finds in
// docs/config.md) is one binding of the key map, with the list's default
// keys and label, and each binding of the key map is one action; each
// entry of the actions table (bindings.go) is the binding of a listed
// action, so a configured key reaches every action it names.
func TestEveryActionHasItsBinding(t *testing.T) {
	k := defaultKeyMap()
	fields := k.byName()
	listed := map[string]bool{}
	for _, a := range actions.All() {
		listed[a.Name] = true
		b, ok := fields[a.Name]
		if !ok {
			t.Errorf("action %s has no binding in the key map", a.Name)
			continue
		}
		want := a.Keys
		if a.Name == "cancel" {
			want = append(slices.Clone(want), "q")
		}
		if !slices.Equal(b.Keys(), want) || b.Help().Desc != a.Label {
			t.Errorf("%s: keys %q help %q, want %q %q", a.Name, b.Keys(), b.Help().Desc, want, a.Label)
		}
		if b.Enabled() != (a.Group != actions.Jobs) {
			t.Errorf("%s: enabled %v by default in group %s", a.Name, b.Enabled(), a.Group)
		}
	}
	for name := range fields {
		if !listed[name] {
			t.Errorf("binding %s is no listed action", name)
		}
	}
	// Every key.Binding field of keyMap is reached by exactly one name.
	seen := map[*key.Binding]string{}
	for name, b := range fields {
		if other, dup := seen[b]; dup {
			t.Errorf("%s and %s name one binding", name, other)
		}
		seen[b] = name
	}
	v := reflect.ValueOf(&k).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Type() != reflect.TypeOf(key.Binding{}) {
			continue
		}
		if _, ok := seen[f.Addr().Interface().(*key.Binding)]; !ok {
			t.Errorf("keyMap.%s is no action's binding", v.Type().Field(i).Name)
		}
	}
	// The actions table's entries are listed actions, rebound by name.
	for _, ab := range actionBindings() {
		if _, ok := seen[ab.binding(&k)]; !ok {
			t.Errorf("the actions table's %q entry has a binding no action names", ab.name)
		}
	}
}

// TestRebindKeepsLabelAndState: a key the file gives replaces the
// default of exactly the action it names, keeping its label and whether
// it is enabled.
func TestRebindKeepsLabelAndState(t *testing.T) {
	defaults := defaultKeyMap()
	for _, a := range actions.All() {
		k := defaultKeyMap().rebind(map[string][]string{a.Name: {"ctrl+z"}})
		for name, b := range k.byName() {
			def := *defaults.byName()[name]
			if name != a.Name {
				if !slices.Equal(b.Keys(), def.Keys()) {
					t.Errorf("rebinding %s changed %s to %q", a.Name, name, b.Keys())
				}
				continue
			}
			if b.Keys()[0] != "ctrl+z" || b.Help().Desc != a.Label || b.Enabled() != def.Enabled() {
				t.Errorf("rebound %s: keys %q help %q enabled %v", name, b.Keys(), b.Help().Desc, b.Enabled())
			}
		}
	}
}
