package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// rebind is k with the keys the configuration file gives (action name to
// keys, the names of internal/actions); each binding keeps its help text
// and whether it is enabled.
func (k keyMap) rebind(bindings map[string][]string) keyMap {
	if len(bindings) == 0 {
		return k
	}
	for _, a := range actions.All() {
		keys := bindings[a.Name]
		if len(keys) == 0 {
			continue
		}
		b := k.get(a.ID)
		nb := newBinding(keys, b.Help().Desc, a.Name)
		nb.SetEnabled(b.Enabled())
		k.set(a.ID, nb)
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
