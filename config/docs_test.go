package config

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListTheScreenDefaults: docs/config.md lists every action with
// its default keys and every view with its columns, as this package
// defines them.
func TestDocsListTheScreenDefaults(t *testing.T) {
	b, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, a := range Actions() {
		var keys []string
		for _, k := range a.Keys {
			if k == " " {
				k = "space"
			}
			keys = append(keys, "`"+k+"`")
		}
		row := "| `" + a.Name + "` | " + strings.Join(keys, ", ") + " | "
		if !strings.Contains(doc, row) {
			t.Errorf("docs/config.md has no row %q", row)
		}
	}
	for view, cols := range ViewColumns() {
		var shown []string
		for _, c := range cols {
			if c == rowColumn(view) {
				c = "**" + c + "**"
			}
			if c == "when" {
				c = "when (RETRY, RUNS or DIED)"
			}
			shown = append(shown, c)
		}
		row := "| `" + view + "` | " + strings.Join(shown, ", ") + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/config.md has no row %q", row)
		}
	}
}
