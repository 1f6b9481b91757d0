// An empty namespace: one where gocraft/work has left no key at all, most
// often a typo in the namespace or none given on a Redis whose namespace
// is another. It is said out loud, with the namespaces that do hold
// gocraft/work keys on that database.

package model

import (
	"fmt"
	"sort"
	"strings"
)

// FindingEmptyNamespace is a namespace without any gocraft/work key.
const FindingEmptyNamespace = "empty_namespace"

// NamespaceSearch is what a bounded look over a database for the keys
// every gocraft/work namespace has (`<ns>:known_jobs`, `<ns>:worker_pools`)
// found.
type NamespaceSearch struct {
	// Namespaces holding such keys, sorted.
	Namespaces []string `json:"namespaces"`
	// Skipped says why the database was not searched ("" when it was):
	// a keyspace too large to walk within the search's bound.
	Skipped string `json:"skipped,omitempty"`
	// Partial is set when the search stopped at its bound before the end
	// of the keyspace: Namespaces may lack some.
	Partial bool `json:"partial,omitempty"`
	// Foreign are a few keys under the namespace itself, which holds none
	// of gocraft/work's: another queue's layout (absent when none).
	Foreign []string `json:"foreign,omitempty"`
}

// EmptyNamespace reports whether snap saw no gocraft/work key of its
// namespace: no pool in worker_pools, no job type (known_jobs, where
// gocraft/work's enqueuer and pools register every name they use, and the
// heartbeats), no job in the retry, scheduled or dead set, no orphaned
// in-progress list.
func EmptyNamespace(snap *Snapshot) bool {
	// A warning means a key of the namespace was there but could not be
	// read (a wrong type): the namespace is not empty, its data is bad.
	return len(snap.Pools) == 0 && len(snap.JobTypes) == 0 && len(snap.Orphans) == 0 &&
		snap.Sets == (SetCounts{}) && len(snap.Warnings) == 0
}

// NamespaceOfKey is the namespace of a key that every namespace has,
// `<ns>:known_jobs` or `<ns>:worker_pools`; false for any other key.
func NamespaceOfKey(key string) (string, bool) {
	for _, suffix := range []string{":known_jobs", ":worker_pools"} {
		if ns, ok := strings.CutSuffix(key, suffix); ok && ns != "" {
			return ns, true
		}
	}
	return "", false
}

// SortNamespaces sorts and deduplicates a search's namespaces in place.
func (s *NamespaceSearch) SortNamespaces() {
	sort.Strings(s.Namespaces)
	out := s.Namespaces[:0]
	for i, ns := range s.Namespaces {
		if i == 0 || ns != s.Namespaces[i-1] {
			out = append(out, ns)
		}
	}
	s.Namespaces = out
}

// FindingOtherLayout is a namespace that holds keys, none of them
// gocraft/work's: it counts as an empty namespace does, in other words.
const FindingOtherLayout = "other_layout"

// EmptyNamespaceFinding is the finding of an empty namespace, naming the
// namespaces the search found (at most a few, then how many more). When
// the search found keys under the namespace (s.Foreign), it is not empty
// but of another layout, and the finding says so.
func EmptyNamespaceFinding(namespace string, s NamespaceSearch) Finding {
	const shown = 5
	detail := "no gocraft/work keys in this namespace (no known_jobs, worker_pools, queues or job sets)"
	kind := FindingEmptyNamespace
	if len(s.Foreign) > 0 {
		kind = FindingOtherLayout
		detail = "keys under " + namespace + ", but not gocraft/work's layout (" + strings.Join(s.Foreign, ", ") + ")"
	}
	switch {
	case s.Skipped != "":
		detail += "; other namespaces not searched: " + s.Skipped
	case len(s.Namespaces) == 0:
		detail += "; no namespace on this database holds any"
		if s.Partial {
			detail += " (searched part of the keyspace)"
		}
	default:
		names := s.Namespaces
		more := ""
		if len(names) > shown {
			more = fmt.Sprintf(" and %d more", len(names)-shown)
			names = names[:shown]
		}
		detail += fmt.Sprintf("; %d %s on this database: %s%s", len(s.Namespaces),
			pluralWord(len(s.Namespaces), "namespace holds them", "namespaces hold them"), strings.Join(names, ", "), more)
		if s.Partial {
			detail += " (searched part of the keyspace)"
		}
	}
	return Finding{Kind: kind, Subject: namespace, Detail: detail}
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
