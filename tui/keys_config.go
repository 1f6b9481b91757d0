package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// rebind is k with the keys the configuration file gives (action name to
// keys, the names of config.Actions); each binding keeps its help text and
// whether it is enabled.
func (k keyMap) rebind(bindings map[string][]string) keyMap {
	if len(bindings) == 0 {
		return k
	}
	fields := k.byName()
	for name, keys := range bindings {
		b, ok := fields[name]
		if !ok || len(keys) == 0 {
			continue // the file was checked: not reached
		}
		nb := newBinding(keys, b.Help().Desc, name)
		nb.SetEnabled(b.Enabled())
		*b = nb
	}
	return k
}

// newBinding is the binding of the action name to keys, with label as its
// help. q always cancels a dialog as well: a reflex q over a plan must
// not leave the screen.
func newBinding(keys []string, label, name string) key.Binding {
	if name == "cancel" && !slices.Contains(keys, "q") {
		keys = append(keys[:len(keys):len(keys)], "q")
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keyLabel(keys), label))
}

// keyLabel is how the help shows keys: "space" for the space bar, several
// joined by "/", never a control or bidi character raw (the file refuses
// them; a key given another way is escaped all the same).
func keyLabel(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		if k == " " {
			k = "space"
		}
		out[i] = textsafe.Clean(k)
	}
	return strings.Join(out, "/")
}
