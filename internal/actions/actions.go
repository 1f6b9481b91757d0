// Package actions is the one list of what a key does on the screen: each
// action's name (the configuration file's [keys]), its group, its default
// keys, its help and its place in the screen's help and footer. The
// configuration file checks bindings against it, the screen builds its key
// map, its help and its footer from it and docs/config.md lists it, so a
// key's name and default are written here alone.
package actions

// ID is an action, the index of its binding in the screen's key map. The
// screen's code names an action by its ID, so a misspelt one does not
// build.
type ID int

// The actions, in the order docs/config.md lists them. A new action is a
// constant here and its entry in All.
const (
	Up ID = iota
	Down
	PageUp
	PageDown
	Top
	Bottom
	NextView
	PrevView
	Enter
	Back
	Filter
	Refresh
	Help
	Command
	Quit
	Reap
	ReapAll
	Requeue
	RepairLocks
	ScanOrphans
	Pause
	Throttle
	History
	Undo
	SwitchNamespace
	Explain
	Timeline
	Events
	Find
	Copy
	CopyCommand
	NextSet
	SetsOrder
	Mark
	Summary
	SetsRequeue
	SetsDelete
	MarkAll
	SetsEdit
	SetsDuplicate
	QueueMarkAll
	QueueDelete
	QueuePark
	Confirm
	Cancel
	ForceRequeue
	// Count is how many actions there are.
	Count
)

// Action is one thing a key does on the screen.
type Action struct {
	// ID is the action's constant.
	ID   ID
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
	// Column and Row place the action in the screen's help ('?'): its
	// column, from 1 on the left, and its order in that column, lower
	// higher up. Column 0 leaves it out (a dialog's keys, which the
	// dialog's own help line shows).
	Column, Row int
	// Footer orders the actions of the footer's help line, lower to the
	// left; 0 leaves it out of the footer.
	//
	// Rows and footer places go in tens, so that a new action fits
	// between two without renumbering the others.
	Footer int
}

// The groups of Action.
const (
	Screen = "screen"
	Jobs   = "jobs"
	Dialog = "dialog"
)

// All lists every action of the screen with its default keys, in the
// order of their IDs (the order docs/config.md shows them): All()[id] is
// the action id.
func All() []Action {
	list := [Count]Action{
		Up:              {Name: "up", Group: Screen, Keys: []string{"up", "k"}, Label: "up", Shown: "↑/k", Column: 1, Row: 10, Help: "cursor up"},
		Down:            {Name: "down", Group: Screen, Keys: []string{"down", "j"}, Label: "down", Shown: "↓/j", Column: 1, Row: 20, Help: "cursor down"},
		PageUp:          {Name: "page_up", Group: Screen, Keys: []string{"pgup"}, Label: "page up", Column: 1, Row: 30, Help: "page up"},
		PageDown:        {Name: "page_down", Group: Screen, Keys: []string{"pgdown"}, Label: "page down", Shown: "pgdn", Column: 1, Row: 40, Help: "page down"},
		Top:             {Name: "top", Group: Screen, Keys: []string{"g", "home"}, Label: "top", Shown: "g", Column: 1, Row: 50, Help: "first row"},
		Bottom:          {Name: "bottom", Group: Screen, Keys: []string{"G", "end"}, Label: "bottom", Shown: "G", Column: 1, Row: 60, Help: "last row"},
		NextView:        {Name: "next_view", Group: Screen, Keys: []string{"tab"}, Label: "view", Column: 3, Row: 10, Footer: 30, Help: "next view"},
		PrevView:        {Name: "prev_view", Group: Screen, Keys: []string{"shift+tab"}, Label: "previous view", Column: 3, Row: 20, Help: "previous view"},
		Enter:           {Name: "enter", Group: Screen, Keys: []string{"enter"}, Label: "detail", Column: 3, Row: 30, Footer: 10, Help: "open the detail"},
		Back:            {Name: "back", Group: Screen, Keys: []string{"esc"}, Label: "back", Column: 3, Row: 40, Footer: 20, Help: "close, clear the filter"},
		Filter:          {Name: "filter", Group: Screen, Keys: []string{"/"}, Label: "filter", Column: 3, Row: 50, Footer: 40, Help: "filter the rows"},
		Refresh:         {Name: "refresh", Group: Screen, Keys: []string{"r"}, Label: "refresh", Column: 5, Row: 100, Footer: 230, Help: "read Redis now"},
		Help:            {Name: "help", Group: Screen, Keys: []string{"?"}, Label: "help", Column: 5, Row: 120, Footer: 240, Help: "all keys"},
		Command:         {Name: "command", Group: Screen, Keys: []string{":"}, Label: "command line", Column: 5, Row: 110, Help: "the command line"},
		Quit:            {Name: "quit", Group: Screen, Keys: []string{"q", "ctrl+c"}, Label: "quit", Shown: "q", Column: 5, Row: 130, Footer: 250, Help: "quit"},
		Reap:            {Name: "reap", Group: Screen, Keys: []string{"x"}, Label: "reap", NotInJobs: true, Column: 4, Row: 10, Footer: 150, Help: "reap the selected dead pool"},
		ReapAll:         {Name: "reap_all", Group: Screen, Keys: []string{"X"}, Label: "reap all", NotInJobs: true, Column: 4, Row: 20, Footer: 160, Help: "reap every dead pool"},
		Requeue:         {Name: "requeue", Group: Screen, Keys: []string{"R"}, Label: "requeue", NotInJobs: true, Column: 4, Row: 30, Footer: 170, Help: "requeue the selected orphaned list"},
		RepairLocks:     {Name: "repair_locks", Group: Screen, Keys: []string{"L"}, Label: "repair locks", NotInJobs: true, Column: 4, Row: 40, Footer: 180, Help: "repair the locks of the selected job type"},
		ScanOrphans:     {Name: "scan_orphans", Group: Screen, Keys: []string{"o"}, Label: "scan orphans", NotInJobs: true, Column: 5, Row: 10, Help: "scan for orphaned in-progress lists"},
		Pause:           {Name: "pause", Group: Screen, Keys: []string{"p"}, Label: "pause", NotInJobs: true, Column: 4, Row: 50, Footer: 190, Help: "pause or unpause the selected job type"},
		Throttle:        {Name: "throttle", Group: Screen, Keys: []string{"t"}, Label: "throttle", NotInJobs: true, Column: 4, Row: 60, Help: "cap how many jobs of the selected type run at once"},
		History:         {Name: "history", Group: Screen, Keys: []string{"u"}, Label: "history", Column: 5, Row: 20, Footer: 220, Help: "the actions of the journal"},
		Undo:            {Name: "undo", Group: Screen, Keys: []string{"U"}, Label: "undo", Column: 4, Row: 70, Footer: 200, Help: "undo the action under the cursor in the history"},
		SwitchNamespace: {Name: "switch_namespace", Group: Screen, Keys: []string{"n"}, Label: "switch namespace", Column: 5, Row: 40, Help: "open the namespace found when this one is empty"},
		// explain acts on a job type or pool, which the Jobs view never
		// selects: its e is sets_edit there.
		Explain:       {Name: "explain", Group: Screen, Keys: []string{"e"}, Label: "explain", NotInJobs: true, Column: 5, Row: 50, Footer: 210, Help: "why the selected job type or pool is not running"},
		Timeline:      {Name: "timeline", Group: Screen, Keys: []string{"T"}, Label: "timeline", Column: 5, Row: 60, Help: "the failures per time bucket"},
		Events:        {Name: "events", Group: Screen, Keys: []string{"E"}, Label: "events", Column: 5, Row: 70, Help: "what changed between the polls since it opened"},
		Find:          {Name: "find", Group: Screen, Keys: []string{"f"}, Label: "find a job", Column: 5, Row: 30, Help: "find a job by id in every place"},
		Copy:          {Name: "copy", Group: Screen, Keys: []string{"c"}, Label: "copy", Column: 5, Row: 80, Help: "copy what is under the cursor (OSC 52)"},
		CopyCommand:   {Name: "copy_command", Group: Screen, Keys: []string{"C"}, Label: "copy command", Column: 5, Row: 90, Help: "copy the command that shows or acts on it"},
		NextSet:       {Name: "next_set", Group: Jobs, Keys: []string{"s"}, Label: "set", Column: 2, Row: 10, Footer: 50, Help: "Jobs view: next job set"},
		SetsOrder:     {Name: "sets_order", Group: Jobs, Keys: []string{"v"}, Label: "newest/oldest", Column: 2, Row: 20, Help: "Jobs view: newest or oldest first"},
		Mark:          {Name: "mark", Group: Jobs, Keys: []string{" "}, Label: "mark", Column: 2, Row: 30, Footer: 110, Help: "Jobs view: mark the job"},
		Summary:       {Name: "summary", Group: Jobs, Keys: []string{"S"}, Label: "summary", Column: 2, Row: 50, Footer: 60, Help: "Jobs view: count by job type and error"},
		SetsRequeue:   {Name: "sets_requeue", Group: Jobs, Keys: []string{"R"}, Label: "requeue", Column: 2, Row: 60, Footer: 70, Help: "Jobs view: requeue the marked jobs"},
		SetsDelete:    {Name: "sets_delete", Group: Jobs, Keys: []string{"D"}, Label: "delete", Column: 2, Row: 70, Footer: 80, Help: "Jobs view: delete the marked jobs"},
		MarkAll:       {Name: "mark_all", Group: Jobs, Keys: []string{"A"}, Label: "mark all", Column: 2, Row: 40, Help: "Jobs view: mark every job the query matches"},
		SetsEdit:      {Name: "sets_edit", Group: Jobs, Keys: []string{"e"}, Label: "edit args", Column: 2, Row: 80, Footer: 90, Help: "Jobs view, a job's detail: edit its args in $EDITOR"},
		SetsDuplicate: {Name: "sets_duplicate", Group: Jobs, Keys: []string{"d"}, Label: "duplicate", Column: 2, Row: 90, Footer: 100, Help: "Jobs view, a job's detail: queue a copy with a new id"},
		QueueMarkAll:  {Name: "queue_mark_all", Group: Screen, Keys: []string{"A"}, Label: "mark all", NotInJobs: true, Column: 2, Row: 100, Footer: 120, Help: "queue view: mark every job the query matches"},
		QueueDelete:   {Name: "queue_delete", Group: Screen, Keys: []string{"D"}, Label: "delete", NotInJobs: true, Column: 2, Row: 110, Footer: 130, Help: "queue view: delete the marked jobs"},
		QueuePark:     {Name: "queue_park", Group: Screen, Keys: []string{"P"}, Label: "park", NotInJobs: true, Column: 2, Row: 120, Footer: 140, Help: "queue view: park the marked jobs in the dead set"},
		Confirm:       {Name: "confirm", Group: Dialog, Keys: []string{"y"}, Label: "run it", Help: "dialog: run the plan"},
		Cancel:        {Name: "cancel", Group: Dialog, Keys: []string{"n", "esc"}, Label: "cancel", Help: "dialog: cancel"},
		ForceRequeue:  {Name: "force_requeue", Group: Dialog, Keys: []string{"F"}, Label: "requeue anyway", Help: "dialog: requeue jobs no live pool serves, when it says so"},
	}
	for i := range list {
		list[i].ID = ID(i)
	}
	return list[:]
}
