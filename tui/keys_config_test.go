package tui

import (
	"strings"
	"testing"
)

// TestConfiguredKeysDrawnSafe: a configured key is never drawn raw, in
// the help or the footer, whatever it holds (the configuration file
// refuses such keys; the screen does not rely on it).
func TestConfiguredKeysDrawnSafe(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	o.Bindings = map[string][]string{"reap": {"\u202e"}, "refresh": {"\x1b]0;owned\x07"}, "filter": {"\u0085"}}
	m := newTest(t, o, 120, 60)
	m = drive(t, m, keys("?")...)
	view := m.View()
	for _, raw := range []string{"\u202e", "\x1b", "\x07", "\u0085"} {
		if strings.Contains(view, raw) {
			t.Fatalf("the help draws %q raw:\n%s", raw, view)
		}
	}
	for _, want := range []string{`\u202e`, `\x1b]0;owned\x07`, `\u0085`} {
		if !strings.Contains(view, want) {
			t.Errorf("the help does not show the key %s escaped:\n%s", want, view)
		}
	}
}
