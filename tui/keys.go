package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key binding of the screen. Bindings are data: the root
// Update matches on them and the help line is rendered from them, so a
// binding that is disabled (an action in read-only mode, or one that does
// not apply right now) is both inert and absent from the help.
type keyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	NextView, PrevView                      key.Binding
	// Views are 1, 2, …: one per view, its help the view's name (set by
	// keyMap from the tabs), listed by '?'.
	Views                       []key.Binding
	Enter, Back                 key.Binding
	Filter, Refresh, Help, Quit key.Binding
	// Command (:) opens the command line.
	Command key.Binding

	// Actions: each has an entry in the actions table (bindings.go) and
	// in ShortHelp/FullHelp.
	ReapOne, ReapAll key.Binding
	// Requeue (R) and RepairLocks (L) are writes; ScanOrphans (o) is a
	// read and stays in read-only mode.
	Requeue, RepairLocks, ScanOrphans key.Binding
	// TogglePause (p) pauses or unpauses the selected job type: a write.
	TogglePause key.Binding
	// Throttle (t) opens the command line at ":throttle JOB " for the
	// selected job type: a write.
	Throttle key.Binding
	// History (u) opens the journal's actions, a read; Undo (U) plans the
	// undo of the action under the cursor there, a write.
	History, Undo key.Binding
	// SwitchNamespace (n) opens the screen on another namespace when
	// this one is empty: a read.
	SwitchNamespace key.Binding
	// Explain (e) explains the selected job type or pool; Timeline (T)
	// opens the failure timeline. Both are reads.
	Explain, Timeline key.Binding
	// Copy (c) copies what is under the cursor, CopyCommand (C) the
	// command that shows or acts on it: reads.
	Copy, CopyCommand key.Binding

	// The Jobs view's keys, enabled by that view only: s switches the set,
	// v reverses the order, space marks, S opens the summary; R and D
	// requeue and delete (writes).
	NextSet, SetsOrder, Mark, SetsSummary key.Binding
	SetsRequeue, SetsDelete               key.Binding
	// MarkAll (A) marks every job the Jobs view's query matches; Find (f),
	// in every view, looks for a job id in every place (find.go).
	MarkAll, Find key.Binding
	// SetsEdit (e) and SetsDuplicate (d), on a job's detail in the Jobs
	// view: edit its args in the operator's editor, queue a copy (writes).
	SetsEdit, SetsDuplicate key.Binding

	// The queue view's keys (actions of the table that apply in that view
	// alone): QueueMarkAll (A) marks every job its query matches,
	// QueueDelete (D) deletes them and QueuePark (P) moves them to the
	// dead set (writes).
	QueueMarkAll, QueueDelete, QueuePark key.Binding

	// Dialog keys. ForceRequeue (F) asks for a requeue of jobs no live pool
	// serves, in the dialog that says so.
	Confirm, Cancel, ForceRequeue key.Binding
}

func defaultKeyMap() keyMap {
	return keyMap{
		Up:              key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:            key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:          key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:        key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:             key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:          key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		NextView:        key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "view")),
		PrevView:        key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous view")),
		Enter:           key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		Back:            key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Filter:          key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Refresh:         key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Help:            key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Command:         key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command line")),
		Quit:            key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		ReapOne:         key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "reap")),
		ReapAll:         key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "reap all")),
		Requeue:         key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "requeue")),
		RepairLocks:     key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "repair locks")),
		ScanOrphans:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "scan orphans")),
		TogglePause:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		Throttle:        key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "throttle")),
		History:         key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "history")),
		Undo:            key.NewBinding(key.WithKeys("U"), key.WithHelp("U", "undo")),
		SwitchNamespace: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "switch namespace")),
		Explain:         key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "explain")),
		Timeline:        key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "timeline")),
		Copy:            key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy")),
		CopyCommand:     key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "copy command")),
		NextSet:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "set"), key.WithDisabled()),
		SetsOrder:       key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "newest/oldest"), key.WithDisabled()),
		Mark:            key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "mark"), key.WithDisabled()),
		SetsSummary:     key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "summary"), key.WithDisabled()),
		SetsRequeue:     key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "requeue"), key.WithDisabled()),
		SetsDelete:      key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "delete"), key.WithDisabled()),
		MarkAll:         key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "mark all"), key.WithDisabled()),
		Find:            key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "find a job")),
		QueueMarkAll:    key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "mark all")),
		QueueDelete:     key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "delete")),
		QueuePark:       key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "park")),
		SetsEdit:        key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit args"), key.WithDisabled()),
		SetsDuplicate:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "duplicate"), key.WithDisabled()),
		ForceRequeue:    key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "requeue anyway")),
		Confirm:         key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "run it")),
		Cancel:          key.NewBinding(key.WithKeys("n", "esc", "q"), key.WithHelp("n/esc/q", "cancel")),
	}
}

// ShortHelp is the one-line help at the bottom.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Enter, k.Back, k.NextView, k.Filter, k.NextSet, k.SetsSummary, k.SetsRequeue, k.SetsDelete, k.SetsEdit, k.SetsDuplicate, k.Mark,
		k.QueueMarkAll, k.QueueDelete, k.QueuePark, k.ReapOne, k.ReapAll, k.Requeue, k.RepairLocks, k.TogglePause, k.Undo, k.Explain, k.History, k.Refresh, k.Help, k.Quit}
}

// FullHelp is the help shown by '?'.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextSet, k.SetsOrder, k.Mark, k.MarkAll, k.SetsSummary, k.SetsRequeue, k.SetsDelete, k.SetsEdit, k.SetsDuplicate, k.QueueMarkAll, k.QueueDelete, k.QueuePark},
		{k.NextView, k.PrevView, k.Enter, k.Back, k.Filter},
		{k.ReapOne, k.ReapAll, k.Requeue, k.RepairLocks, k.TogglePause, k.Throttle, k.Undo},
		{k.ScanOrphans, k.History, k.Find, k.SwitchNamespace, k.Explain, k.Timeline, k.Copy, k.CopyCommand, k.Refresh, k.Command, k.Help, k.Quit},
		k.Views,
	}
}

// dialogKeys is the help while a confirm dialog is open.
type dialogKeys struct {
	k keyMap
	d confirmDialog
}

func (d dialogKeys) ShortHelp() []key.Binding {
	// q cancels here: a reflex q over a plan must not leave the screen.
	if d.d.blocked != "" {
		if d.d.alt != nil {
			return []key.Binding{d.d.alt.binding, d.k.Cancel}
		}
		return []key.Binding{d.k.Cancel}
	}
	return []key.Binding{d.k.Confirm, d.k.Cancel}
}
func (d dialogKeys) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// filterKeys is the help while the filter is being typed.
type filterKeys struct{}

func (filterKeys) ShortHelp() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
	}
}
func (f filterKeys) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }
