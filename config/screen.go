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
)

// Action is one thing a key does on the screen.
type Action struct {
	Name string
	// Keys are the default keys, in the names the screen matches on
	// ("up", "ctrl+c", "X", " " for space).
	Keys []string
	// Group is the set of bindings active at the same time: two actions
	// of a group may not share a key. GroupScreen is always active (the
	// lists, the views, the actions on pools and job types); GroupJobs is
	// the Jobs view's own, active with GroupScreen's navigation and global
	// keys but in place of its actions on pools; GroupDialog is a
	// confirmation dialog's, active with quit alone.
	Group string
	Help  string
}

// The groups of Action.
const (
	GroupScreen = "screen"
	GroupJobs   = "jobs"
	GroupDialog = "dialog"
)

// Actions lists every action of the screen with its default keys, in the
// order docs/config.md shows them.
func Actions() []Action {
	a := func(name, group, help string, keys ...string) Action {
		return Action{Name: name, Keys: keys, Group: group, Help: help}
	}
	return []Action{
		a("up", GroupScreen, "cursor up", "up", "k"),
		a("down", GroupScreen, "cursor down", "down", "j"),
		a("page_up", GroupScreen, "page up", "pgup"),
		a("page_down", GroupScreen, "page down", "pgdown"),
		a("top", GroupScreen, "first row", "g", "home"),
		a("bottom", GroupScreen, "last row", "G", "end"),
		a("next_view", GroupScreen, "next view", "tab"),
		a("prev_view", GroupScreen, "previous view", "shift+tab"),
		a("enter", GroupScreen, "open the detail", "enter"),
		a("back", GroupScreen, "close, clear the filter", "esc"),
		a("filter", GroupScreen, "filter the rows", "/"),
		a("refresh", GroupScreen, "read Redis now", "r"),
		a("help", GroupScreen, "all keys", "?"),
		a("command", GroupScreen, "the command line", ":"),
		a("quit", GroupScreen, "quit", "q", "ctrl+c"),
		a("reap", GroupScreen, "reap the selected dead pool", "x"),
		a("reap_all", GroupScreen, "reap every dead pool", "X"),
		a("requeue", GroupScreen, "requeue the selected orphaned list", "R"),
		a("repair_locks", GroupScreen, "repair the locks of the selected job type", "L"),
		a("scan_orphans", GroupScreen, "scan for orphaned in-progress lists", "o"),
		a("pause", GroupScreen, "pause or unpause the selected job type", "p"),
		a("throttle", GroupScreen, "cap how many jobs of the selected type run at once", "t"),
		a("history", GroupScreen, "the actions of the journal", "u"),
		a("undo", GroupScreen, "undo the action under the cursor in the history", "U"),
		a("switch_namespace", GroupScreen, "open the namespace found when this one is empty", "n"),
		a("explain", GroupScreen, "why the selected job type or pool is not running", "e"),
		a("timeline", GroupScreen, "the failures per time bucket", "T"),
		a("find", GroupScreen, "find a job by id in every place", "f"),
		a("copy", GroupScreen, "copy what is under the cursor (OSC 52)", "c"),
		a("copy_command", GroupScreen, "copy the command that shows or acts on it", "C"),
		a("next_set", GroupJobs, "Jobs view: next job set", "s"),
		a("sets_order", GroupJobs, "Jobs view: newest or oldest first", "v"),
		a("mark", GroupJobs, "Jobs view: mark the job", " "),
		a("summary", GroupJobs, "Jobs view: count by job type and error", "S"),
		a("sets_requeue", GroupJobs, "Jobs view: requeue the marked jobs", "R"),
		a("sets_delete", GroupJobs, "Jobs view: delete the marked jobs", "D"),
		a("mark_all", GroupJobs, "Jobs view: mark every job the query matches", "A"),
		a("sets_edit", GroupJobs, "Jobs view, a job's detail: edit its args in $EDITOR", "e"),
		a("sets_duplicate", GroupJobs, "Jobs view, a job's detail: queue a copy with a new id", "d"),
		a("queue_mark_all", GroupScreen, "queue view: mark every job the query matches", "A"),
		a("queue_delete", GroupScreen, "queue view: delete the marked jobs", "D"),
		a("queue_park", GroupScreen, "queue view: park the marked jobs in the dead set", "P"),
		a("confirm", GroupDialog, "dialog: run the plan", "y"),
		a("cancel", GroupDialog, "dialog: cancel", "n", "esc"),
		a("force_requeue", GroupDialog, "dialog: requeue jobs no live pool serves, when it says so", "F"),
	}
}

// jobsNavigation is the actions of GroupScreen that stay active in the
// Jobs view beside GroupJobs (its actions on pools and job types do not).
func jobsNavigation(name string) bool {
	switch name {
	case "reap", "reap_all", "requeue", "repair_locks", "scan_orphans", "pause", "throttle",
		"queue_mark_all", "queue_delete", "queue_park",
		// explain acts on a job type or pool, which the Jobs view never
		// selects: its e is sets_edit there.
		"explain":
		return false
	}
	return true
}

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
	actions := map[string]Action{}
	var names []string
	for _, a := range Actions() {
		actions[a.Name] = a
		names = append(names, a.Name)
	}
	out := map[string][]string{}
	for _, name := range sortedKeys(tbl) {
		path := []string{"keys", name}
		if _, ok := actions[name]; !ok {
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
	p.checkClashes(actions, out)
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
func (p *parser) checkClashes(actions map[string]Action, set map[string][]string) {
	keysOf := func(name string) []string {
		if k, ok := set[name]; ok {
			return k
		}
		return actions[name].Keys
	}
	together := func(a, b Action) bool {
		switch {
		case a.Group == b.Group:
			return true
		case a.Group == GroupDialog || b.Group == GroupDialog:
			return a.Name == "quit" || b.Name == "quit"
		case a.Group == GroupJobs:
			return jobsNavigation(b.Name)
		default:
			return jobsNavigation(a.Name)
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
