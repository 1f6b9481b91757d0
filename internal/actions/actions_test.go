package actions

import "testing"

// TestEveryActionListedOnce: each ID has its entry in All, under a name
// of its own, and no two actions share a place in the help or in the
// footer (the screen's order would then be the list's, by chance).
func TestEveryActionListedOnce(t *testing.T) {
	all := All()
	if len(all) != int(Count) {
		t.Fatalf("All lists %d actions, want %d", len(all), Count)
	}
	names := map[string]ID{}
	places := map[[2]int]string{}
	footer := map[int]string{}
	for i, a := range all {
		if a.ID != ID(i) {
			t.Errorf("All()[%d] is the action %d", i, a.ID)
		}
		if a.Name == "" || a.Label == "" || a.Help == "" || len(a.Keys) == 0 || a.Group == "" {
			t.Errorf("action %d (%q) has no entry, or an entry without name, label, help, keys or group", i, a.Name)
		}
		if other, dup := names[a.Name]; dup {
			t.Errorf("actions %d and %d are both named %q", other, i, a.Name)
		}
		names[a.Name] = a.ID
		if (a.Column == 0) != (a.Row == 0) || a.Column < 0 || a.Row < 0 || a.Footer < 0 {
			t.Errorf("%s: column %d row %d footer %d: a column and a row, both or neither, none below 0", a.Name, a.Column, a.Row, a.Footer)
		}
		if a.Column != 0 {
			p := [2]int{a.Column, a.Row}
			if other, dup := places[p]; dup {
				t.Errorf("%s and %s both sit at column %d row %d of the help", other, a.Name, a.Column, a.Row)
			}
			places[p] = a.Name
		}
		if a.Footer != 0 {
			if other, dup := footer[a.Footer]; dup {
				t.Errorf("%s and %s both sit at place %d of the footer", other, a.Name, a.Footer)
			}
			footer[a.Footer] = a.Name
		}
	}
}
