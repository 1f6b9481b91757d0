package model

import (
	"reflect"
	"strings"
	"testing"
)

func TestEmptyNamespaceFinding(t *testing.T) {
	empty := &Snapshot{Namespace: "inc33", Search: &NamespaceSearch{Namespaces: []string{"inc3", "myapp"}}}
	empty.Findings = Findings(empty)
	f := empty.Findings
	if len(f) != 1 || f[0].Kind != FindingEmptyNamespace || f[0].Subject != "inc33" ||
		!strings.Contains(f[0].Detail, "2 namespaces hold them on this database: inc3, myapp") {
		t.Fatalf("findings %+v", f)
	}
	if !empty.HasProblems() {
		t.Error("an empty namespace is not a problem")
	}
	// Without a search, or with any gocraft/work key, no such finding.
	for name, snap := range map[string]*Snapshot{
		"no search":  {Namespace: "x"},
		"a pool":     {Namespace: "x", Search: &NamespaceSearch{}, Pools: []Pool{{ID: "p", Status: StatusAlive}}},
		"a job type": {Namespace: "x", Search: &NamespaceSearch{}, JobTypes: []JobType{{Name: "mail"}}},
		"dead jobs":  {Namespace: "x", Search: &NamespaceSearch{}, Sets: SetCounts{Dead: 1}},
		"an orphan":  {Namespace: "x", Search: &NamespaceSearch{}, Orphans: []InProgressList{{Key: "k"}}},
	} {
		snap.Findings = Findings(snap)
		for _, f := range snap.Findings {
			if f.Kind == FindingEmptyNamespace {
				t.Errorf("%s: %+v", name, f)
			}
		}
	}
	for _, tc := range []struct {
		s    NamespaceSearch
		want string
	}{
		{NamespaceSearch{}, "; no namespace on this database holds any"},
		{NamespaceSearch{Namespaces: []string{"a"}}, "; 1 namespace holds them on this database: a"},
		{NamespaceSearch{Namespaces: []string{"a", "b", "c", "d", "e", "f", "g"}, Partial: true}, ": a, b, c, d, e and 2 more (searched part of the keyspace)"},
		{NamespaceSearch{Skipped: "12000000 keys, more than 1000000"}, "; other namespaces not searched: 12000000 keys"},
	} {
		if d := EmptyNamespaceFinding("n", tc.s).Detail; !strings.Contains(d, tc.want) {
			t.Errorf("%+v: %q lacks %q", tc.s, d, tc.want)
		}
	}
}

func TestNamespaceOfKey(t *testing.T) {
	var got []string
	for _, k := range []string{"work:known_jobs", "myapp:worker_pools", "a:b:known_jobs", "work:worker_pools:abc", ":known_jobs", "known_jobs", "x:jobs:known_jobs_x"} {
		if ns, ok := NamespaceOfKey(k); ok {
			got = append(got, ns)
		}
	}
	if want := []string{"work", "myapp", "a:b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	s := NamespaceSearch{Namespaces: []string{"b", "a", "b"}}
	s.SortNamespaces()
	if !reflect.DeepEqual(s.Namespaces, []string{"a", "b"}) {
		t.Errorf("sorted %q", s.Namespaces)
	}
}

func TestShortID(t *testing.T) {
	for in, want := range map[string]string{
		"bbb2b0f6a8f5c7e1d4a9c3e0": "bbb2b0f6a8f5…",
		"bbb2b0f6a8f5":             "bbb2b0f6a8f5",
		"bbb2b0f6a8f5c":            "bbb2b0f6a8f5…",
		"p1":                       "p1",
		"ééééééééééééé":            "éééééééééééé…",
	} {
		if got := ShortID(in); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}
