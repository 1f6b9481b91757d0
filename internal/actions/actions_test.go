package actions

import "testing"

// TestEveryActionListedOnce: each ID has its entry in All, under a name
// of its own, and the help's and the footer's places are each taken by
// one action at most, with no gap (a gap would be an entry left out by
// mistake, or a place numbered twice).
func TestEveryActionListedOnce(t *testing.T) {
	all := All()
	if len(all) != int(Count) {
		t.Fatalf("All lists %d actions, want %d", len(all), Count)
	}
	names := map[string]ID{}
	places := map[[2]int]string{}
	footer := map[int]string{}
	rows := map[int]int{}
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
		if (a.Column == 0) != (a.Row == 0) {
			t.Errorf("%s: column %d row %d: both or neither", a.Name, a.Column, a.Row)
		}
		if a.Column != 0 {
			p := [2]int{a.Column, a.Row}
			if other, dup := places[p]; dup {
				t.Errorf("%s and %s both sit at column %d row %d of the help", other, a.Name, a.Column, a.Row)
			}
			places[p] = a.Name
			rows[a.Column]++
		}
		if a.Footer != 0 {
			if other, dup := footer[a.Footer]; dup {
				t.Errorf("%s and %s both sit at place %d of the footer", other, a.Name, a.Footer)
			}
			footer[a.Footer] = a.Name
		}
	}
	for c := 1; c <= len(rows); c++ {
		for r := 1; r <= rows[c]; r++ {
			if _, ok := places[[2]int{c, r}]; !ok {
				t.Errorf("the help's column %d has no row %d", c, r)
			}
		}
	}
	for p := 1; p <= len(footer); p++ {
		if _, ok := footer[p]; !ok {
			t.Errorf("the footer has no place %d", p)
		}
	}
}
