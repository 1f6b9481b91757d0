// Package actions is the one list of what a key does on the screen: each
// action's name (the configuration file's [keys]), its group, its default
// keys and its help. The configuration file checks bindings against it,
// the screen builds its key map from it and docs/config.md lists it, so a
// key's name and default are written here alone.
package actions

// Action is one thing a key does on the screen.
type Action struct {
	Name string
	// Keys are the default keys, in the names the screen matches on
	// ("up", "ctrl+c", "X", " " for space).
	Keys []string
	// Group is the set of bindings active at the same time: two actions
	// of a group may not share a key. Screen is always active (the
	// lists, the views, the actions on pools and job types); Jobs is the
	// Jobs view's own, active with Screen's navigation and global keys but
	// in place of its actions on pools (those with NotInJobs); Dialog is a
	// confirmation dialog's, active with quit alone.
	Group string
	// Help is what the action does, as the configuration's reference
	// says it.
	Help string
	// Label is the action in the screen's help and footer ("reap all").
	Label string
	// Shown is how the screen's help shows the default keys when not
	// simply all of them ("↑/k"); "" shows them all.
	Shown string
	// NotInJobs marks an action of Screen the Jobs view turns off: it
	// acts on pools or job types.
	NotInJobs bool
}

// The groups of Action.
const (
	Screen = "screen"
	Jobs   = "jobs"
	Dialog = "dialog"
)

// All lists every action of the screen with its default keys, in the
// order docs/config.md shows them.
func All() []Action {
	a := func(name, group, label, help string, keys ...string) Action {
		return Action{Name: name, Keys: keys, Group: group, Label: label, Help: help}
	}
	shown := func(a Action, s string) Action { a.Shown = s; return a }
	pools := func(a Action) Action { a.NotInJobs = true; return a }
	return []Action{
		shown(a("up", Screen, "up", "cursor up", "up", "k"), "↑/k"),
		shown(a("down", Screen, "down", "cursor down", "down", "j"), "↓/j"),
		a("page_up", Screen, "page up", "page up", "pgup"),
		shown(a("page_down", Screen, "page down", "page down", "pgdown"), "pgdn"),
		shown(a("top", Screen, "top", "first row", "g", "home"), "g"),
		shown(a("bottom", Screen, "bottom", "last row", "G", "end"), "G"),
		a("next_view", Screen, "view", "next view", "tab"),
		a("prev_view", Screen, "previous view", "previous view", "shift+tab"),
		a("enter", Screen, "detail", "open the detail", "enter"),
		a("back", Screen, "back", "close, clear the filter", "esc"),
		a("filter", Screen, "filter", "filter the rows", "/"),
		a("refresh", Screen, "refresh", "read Redis now", "r"),
		a("help", Screen, "help", "all keys", "?"),
		a("command", Screen, "command line", "the command line", ":"),
		shown(a("quit", Screen, "quit", "quit", "q", "ctrl+c"), "q"),
		pools(a("reap", Screen, "reap", "reap the selected dead pool", "x")),
		pools(a("reap_all", Screen, "reap all", "reap every dead pool", "X")),
		pools(a("requeue", Screen, "requeue", "requeue the selected orphaned list", "R")),
		pools(a("repair_locks", Screen, "repair locks", "repair the locks of the selected job type", "L")),
		pools(a("scan_orphans", Screen, "scan orphans", "scan for orphaned in-progress lists", "o")),
		pools(a("pause", Screen, "pause", "pause or unpause the selected job type", "p")),
		pools(a("throttle", Screen, "throttle", "cap how many jobs of the selected type run at once", "t")),
		a("history", Screen, "history", "the actions of the journal", "u"),
		a("undo", Screen, "undo", "undo the action under the cursor in the history", "U"),
		a("switch_namespace", Screen, "switch namespace", "open the namespace found when this one is empty", "n"),
		// explain acts on a job type or pool, which the Jobs view never
		// selects: its e is sets_edit there.
		pools(a("explain", Screen, "explain", "why the selected job type or pool is not running", "e")),
		a("timeline", Screen, "timeline", "the failures per time bucket", "T"),
		a("events", Screen, "events", "what changed between the polls since it opened", "E"),
		a("find", Screen, "find a job", "find a job by id in every place", "f"),
		a("copy", Screen, "copy", "copy what is under the cursor (OSC 52)", "c"),
		a("copy_command", Screen, "copy command", "copy the command that shows or acts on it", "C"),
		a("next_set", Jobs, "set", "Jobs view: next job set", "s"),
		a("sets_order", Jobs, "newest/oldest", "Jobs view: newest or oldest first", "v"),
		a("mark", Jobs, "mark", "Jobs view: mark the job", " "),
		a("summary", Jobs, "summary", "Jobs view: count by job type and error", "S"),
		a("sets_requeue", Jobs, "requeue", "Jobs view: requeue the marked jobs", "R"),
		a("sets_delete", Jobs, "delete", "Jobs view: delete the marked jobs", "D"),
		a("mark_all", Jobs, "mark all", "Jobs view: mark every job the query matches", "A"),
		a("sets_edit", Jobs, "edit args", "Jobs view, a job's detail: edit its args in $EDITOR", "e"),
		a("sets_duplicate", Jobs, "duplicate", "Jobs view, a job's detail: queue a copy with a new id", "d"),
		pools(a("queue_mark_all", Screen, "mark all", "queue view: mark every job the query matches", "A")),
		pools(a("queue_delete", Screen, "delete", "queue view: delete the marked jobs", "D")),
		pools(a("queue_park", Screen, "park", "queue view: park the marked jobs in the dead set", "P")),
		a("confirm", Dialog, "run it", "dialog: run the plan", "y"),
		a("cancel", Dialog, "cancel", "dialog: cancel", "n", "esc"),
		a("force_requeue", Dialog, "requeue anyway", "dialog: requeue jobs no live pool serves, when it says so", "F"),
	}
}
