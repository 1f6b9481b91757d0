package config

// This file owns the screen's part of the file: [keys], which binds the
// screen's actions to other keys, and [columns.VIEW], which chooses the
// columns of a view. Both are checked here, each problem on its own line
// with the file's line; the screen applies what they hold (File.Bindings,
// File.Columns) over its own defaults, which are the ones listed here.

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// Action is one thing a key does on the screen (internal/actions holds
// the list, which the screen builds its keys from).
type Action = actions.Action

// The groups of Action.
const (
	GroupScreen = actions.Screen
	GroupJobs   = actions.Jobs
	GroupDialog = actions.Dialog
)

// Actions lists every action of the screen with its default keys, in the
// order docs/config.md shows them.
func Actions() []Action { return actions.All() }

// namedKeys are the keys written by name; any other key is one printable
// character.
func namedKeys() []string {
	keys := []string{"up", "down", "left", "right", "enter", "esc", "tab", "shift+tab", "backspace",
		"delete", "insert", "home", "end", "pgup", "pgdown", "space"}
	for i := 1; i <= 12; i++ {
		keys = append(keys, fmt.Sprintf("f%d", i))
	}
	for c := 'a'; c <= 'z'; c++ {
		keys = append(keys, "ctrl+"+string(c))
	}
	return keys
}

// normalKey is a key as the screen matches it ("space" is " "), or an
// error for a name the screen would never see.
func normalKey(k string) (string, error) {
	for _, r := range k {
		if !printableKeyRune(r) {
			return "", fmt.Errorf("%+q holds U+%04X, a control, bidi or other character that is not printed: write the key by its name or as the printable character", k, r)
		}
	}
	switch k {
	case "ctrl+m":
		return "", fmt.Errorf(`"ctrl+m" never arrives: terminals send it as enter; bind "enter", or another key`)
	case "ctrl+i":
		return "", fmt.Errorf(`"ctrl+i" never arrives: terminals send it as tab; bind "tab", or another key`)
	}
	switch {
	case k == "space" || k == " ":
		return " ", nil
	case slices.Contains(namedKeys(), k):
		return k, nil
	case strings.HasPrefix(k, "alt+") && utf8.RuneCountInString(k) == 5 && k[4] > ' ' && k[4] < 0x7f:
		return k, nil
	case utf8.RuneCountInString(k) == 1 && k > " " && k != "\x7f":
		return k, nil
	}
	return "", fmt.Errorf("%q is not a key: write one character (\"X\"), or one of %s, ctrl+a...ctrl+z, alt+KEY", k,
		strings.Join(namedKeys()[:16], ", ")+", f1...f12")
}

// printableKeyRune reports whether r may be part of a key's name: it is
// drawn in the help as it is, so no control (C0, C1, DEL), no bidi
// control, no format, private-use or unassigned character, no space other
// than the ASCII one, and no mark that has no width of its own.
func printableKeyRune(r rune) bool {
	return r == ' ' || (unicode.IsPrint(r) && !unicode.In(r, unicode.Mn, unicode.Me) && r != utf8.RuneError)
}

// ViewColumns lists each view's columns in their default order: the names
// are the column titles in lower case (the Jobs view's first column, whose
// title is the set's time, is "when").
func ViewColumns() map[string][]string {
	return map[string][]string{
		"pools":    {"status", "pool", "host:pid", "beat", "started", "conc", "inprog", "locks", "jobs"},
		"jobtypes": {"job", "queued", "latency", "fail/m", "inprog", "lock/max", "lockinfo", "paused", "drift", "why", "trend"},
		"orphans":  {"key", "job", "pool", "length"},
		"workers":  {"pool", "worker", "job", "running", "checkin", "note"},
		"jobs":     {"when", "job", "id", "fails", "error"},
		"fleet": {"target", "state", "age", "pools", "dead", "late", "drift", "orph", "queued", "latency",
			"retry", "sched", "deadjobs", "busy", "note"},
	}
}

// rowColumn is the column of each view that names its row: it is never
// hidden, so an action never runs on a row the operator cannot name.
func rowColumn(view string) string {
	return map[string]string{"pools": "pool", "jobtypes": "job", "orphans": "key", "workers": "worker",
		"jobs": "id", "fleet": "target"}[view]
}

// bindings checks the [keys] table and returns the keys of every action it
// names.
func (p *parser) bindings(v any) map[string][]string {
	tbl, ok := v.(map[string]any)
	if !ok {
		p.add([]string{"keys"}, "keys must be a table of action = key")
		return nil
	}
	byName := map[string]Action{}
	var names []string
	for _, a := range Actions() {
		byName[a.Name] = a
		names = append(names, a.Name)
	}
	out := map[string][]string{}
	for _, name := range sortedKeys(tbl) {
		path := []string{"keys", name}
		if _, ok := byName[name]; !ok {
			p.add(path, "keys.%s: unknown action (the actions are %s)", name, strings.Join(names, ", "))
			continue
		}
		keys, err := keyList(tbl[name])
		if err != nil {
			p.add(path, "keys.%s: %v", name, err)
			continue
		}
		out[name] = keys
	}
	p.checkClashes(byName, out)
	return out
}

// keyList reads a binding: one key, or an array of them.
func keyList(v any) ([]string, error) {
	var raw []any
	switch v := v.(type) {
	case string:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, want(`a key in quotes ("X") or an array of keys`, v)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("an action needs a key")
	}
	var keys []string
	for _, r := range raw {
		s, ok := r.(string)
		if !ok {
			return nil, want("keys in quotes", r)
		}
		k, err := normalKey(s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// checkClashes reports every key that two actions active at the same time
// share, once the file's bindings replace the defaults; the problem is on
// the line of a binding the file gives.
func (p *parser) checkClashes(byName map[string]Action, set map[string][]string) {
	keysOf := func(name string) []string {
		if k, ok := set[name]; ok {
			return k
		}
		return byName[name].Keys
	}
	together := func(a, b Action) bool {
		switch {
		case a.Group == b.Group:
			return true
		case a.Group == GroupDialog || b.Group == GroupDialog:
			return a.Name == "quit" || b.Name == "quit"
		case a.Group == GroupJobs:
			return !b.NotInJobs
		default:
			return !a.NotInJobs
		}
	}
	order := Actions()
	reported := map[string]bool{}
	for i, a := range order {
		for _, b := range order[i+1:] {
			_, aSet := set[a.Name]
			_, bSet := set[b.Name]
			if (!aSet && !bSet) || !together(a, b) {
				continue
			}
			for _, k := range keysOf(a.Name) {
				if !slices.Contains(keysOf(b.Name), k) || reported[a.Name+"\x00"+k] || reported[b.Name+"\x00"+k] {
					continue
				}
				// The problem goes on the file's binding; when both are
				// the file's, on the later line, naming the earlier.
				at, other := a, b
				if !aSet || (bSet && p.line([]string{"keys", b.Name}) > p.line([]string{"keys", a.Name})) {
					at, other = b, a
				}
				reported[at.Name+"\x00"+k] = true
				where := "its default key"
				if _, ok := set[other.Name]; ok {
					where = fmt.Sprintf("line %d", p.line([]string{"keys", other.Name}))
				}
				p.add([]string{"keys", at.Name}, "keys.%s: %s is also the key of %s (%s); give one of them another key",
					at.Name, showKey(k), other.Name, where)
			}
		}
	}
}

// showKey writes a key as the file does.
func showKey(k string) string {
	if k == " " {
		return `"space"`
	}
	return fmt.Sprintf("%q", k)
}

// columns checks the [columns] table: one [columns.VIEW] table per view,
// each with visible = [...] (the columns shown, in order) or hidden =
// [...]. It returns the visible columns of every view it names.
func (p *parser) columns(v any) map[string][]string {
	tbl, ok := v.(map[string]any)
	if !ok {
		p.add([]string{"columns"}, "columns must hold [columns.VIEW] tables")
		return nil
	}
	all := ViewColumns()
	views := sortedKeys(all)
	out := map[string][]string{}
	for _, view := range sortedKeys(tbl) {
		path := []string{"columns", view}
		cols, ok := all[view]
		if !ok {
			p.add(path, "columns.%s: unknown view (the views are %s)", view, strings.Join(views, ", "))
			continue
		}
		vt, ok := tbl[view].(map[string]any)
		if !ok {
			p.add(path, "columns.%s must be a table with visible = [...] or hidden = [...]", view)
			continue
		}
		if _, ok := vt["visible"]; ok {
			if _, ok := vt["hidden"]; ok {
				p.add(append(path, "hidden"), "columns.%s: give visible or hidden, not both", view)
				continue
			}
		}
		var visible []string
		bad := false
		for _, k := range sortedKeys(vt) {
			kp := append(append([]string(nil), path...), k)
			if k != "visible" && k != "hidden" {
				p.add(kp, "columns.%s.%s: unknown key (the keys are visible and hidden)", view, k)
				bad = true
				continue
			}
			names, err := columnList(vt[k], cols)
			if err != nil {
				p.add(kp, "columns.%s.%s: %v", view, k, err)
				bad = true
				continue
			}
			if k == "visible" {
				visible = names
			} else {
				for _, c := range cols {
					if !slices.Contains(names, c) {
						visible = append(visible, c)
					}
				}
			}
			if !slices.Contains(visible, rowColumn(view)) {
				p.add(kp, "columns.%s.%s: the %s column names the row and cannot be hidden", view, k, rowColumn(view))
				bad = true
			}
		}
		if !bad && visible != nil {
			out[view] = visible
		}
	}
	return out
}

// columnList reads an array of column names of a view, each once.
func columnList(v any, cols []string) ([]string, error) {
	raw, ok := v.([]any)
	if !ok {
		return nil, want(`an array of column names (["status", "pool"])`, v)
	}
	var names []string
	for _, r := range raw {
		s, ok := r.(string)
		if !ok {
			return nil, want("column names in quotes", r)
		}
		s = strings.ToLower(s)
		if !slices.Contains(cols, s) {
			return nil, fmt.Errorf("no column %q (the columns are %s)", s, strings.Join(cols, ", "))
		}
		if slices.Contains(names, s) {
			return nil, fmt.Errorf("column %q is given twice", s)
		}
		names = append(names, s)
	}
	return names, nil
}
