package tui

// This file owns the empty namespace on the screen: when a snapshot finds
// no gocraft/work key in the namespace (a typo in -n, or none given on a
// Redis whose namespace is another), the screen asks the reader once which
// namespaces of the database hold such keys; the header's verdict then
// counts the empty namespace, the status line names what was found, and n
// switches to the closest one. The switch reads only: the screen ends,
// and the program opens it again on the chosen namespace (SwitchTo), so
// that every read, write, journal and audit line of the new screen is of
// that namespace, none left over from the old one.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// NamespaceFinder searches the database for the namespaces that hold
// gocraft/work keys (a bounded, paced SCAN in the program: see
// redisq.FindNamespaces).
type NamespaceFinder interface {
	FindNamespaces(ctx context.Context) (model.NamespaceSearch, error)
}

// namespaceSearchMsg is the result of the search.
type namespaceSearchMsg struct {
	search model.NamespaceSearch
	err    error
}

// nsState is the search's state: it runs once per screen, after the first
// snapshot that finds the namespace empty.
type nsState struct {
	started bool
	found   *model.NamespaceSearch
	// switchTo is the namespace n chose: the screen has ended for the
	// program to open it there.
	switchTo string
}

// namespaceSearchTimeout bounds the search: it paces itself over at most a
// few hundred milliseconds of Redis time.
const namespaceSearchTimeout = time.Minute

// searchNamespaces starts the search when snap finds the namespace empty
// and Reads.Namespaces is set, once.
func (m Model) searchNamespaces(snap *model.Snapshot) (Model, tea.Cmd) {
	if m.rd.Namespaces == nil || m.ns.started || !model.EmptyNamespace(snap) {
		return m, nil
	}
	m.ns.started = true
	f := m.rd.Namespaces
	return m, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), namespaceSearchTimeout)
		defer cancel()
		s, err := f.FindNamespaces(ctx)
		return namespaceSearchMsg{search: s, err: err}
	}
}

// onNamespaceSearch keeps what the search found and shows it in the
// snapshot on screen.
func (m Model) onNamespaceSearch(msg namespaceSearchMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		return m.setStatus("could not search for other namespaces: "+msg.err.Error(), true)
	}
	m.ns.found = &msg.search
	if m.snap != nil {
		m = m.setSnap(m.withSearch(m.snap))
	}
	return m, nil
}

// withSearch is snap with the search's result, so that its findings say
// the namespace is empty (model.Findings); snap itself when the namespace
// is not empty or nothing was searched.
func (m Model) withSearch(snap *model.Snapshot) *model.Snapshot {
	if m.ns.found == nil || snap.Search != nil || !model.EmptyNamespace(snap) {
		return snap
	}
	out := *snap
	out.Search = m.ns.found
	out.Findings = model.Findings(&out)
	return &out
}

// switchTarget is the namespace n switches to: of those found, the
// closest to the one shown (a typo is one or two edits away).
func (m Model) switchTarget() (string, bool) {
	if !m.opts.SwitchNamespace || m.ns.found == nil || m.snap == nil || !model.EmptyNamespace(m.snap) {
		return "", false
	}
	names := append([]string(nil), m.ns.found.Namespaces...)
	if len(names) == 0 {
		return "", false
	}
	cur := m.opts.Namespace
	sort.SliceStable(names, func(i, j int) bool {
		return model.EditDistance(cur, names[i]) < model.EditDistance(cur, names[j])
	})
	return names[0], true
}

// namespaceNotice is the status line's word on an empty namespace: what
// the search found and, when the screen can switch, the key that does.
func (m Model) namespaceNotice() string {
	if m.ns.found == nil || m.snap == nil || !model.EmptyNamespace(m.snap) {
		return ""
	}
	ns := "ns " + textsafe.Clean(m.opts.Namespace) + " has no gocraft/work keys"
	s := m.ns.found
	if len(s.Foreign) > 0 {
		ns = "keys under " + textsafe.Clean(m.opts.Namespace) + ", but not gocraft/work's layout"
	}
	switch {
	case s.Skipped != "":
		return ns + "; other namespaces not searched (large keyspace)"
	case len(s.Namespaces) == 0:
		return ns + "; no namespace on this database has any"
	}
	names := s.Namespaces
	more := ""
	if len(names) > 3 {
		names, more = names[:3], fmt.Sprintf(" +%d", len(names)-3)
	}
	text := ns + "; found " + textsafe.Clean(strings.Join(names, ", ")) + more
	if to, ok := m.switchTarget(); ok {
		text += fmt.Sprintf(": %s opens %s", m.keys.get(actions.SwitchNamespace).Help().Key, textsafe.Clean(to))
	}
	return text
}

// switchNamespace ends the screen for the program to open it on the
// namespace to (the one found closest to this one, switchTarget).
func (m Model) switchNamespace(to string) (Model, tea.Cmd) {
	m.ns.switchTo = to
	return m, tea.Quit
}

// SwitchTo is the namespace the operator chose with n on an empty
// namespace: the screen ended for the program to open it there; "" when
// it ended otherwise.
func (m Model) SwitchTo() string { return m.ns.switchTo }
