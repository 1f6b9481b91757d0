package tui

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// keyMap is every key binding of the screen. Bindings are data: the root
// Update matches on them and the help line is rendered from them, so a
// binding that is disabled (an action in read-only mode, or one that does
// not apply right now) is both inert and absent from the help. Each field
// is an action of internal/actions, named in byName, which gives its
// default keys and help.
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
	// Events (E) opens what changed between polls (events_view.go): a read.
	Events key.Binding
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

// defaultKeyMap is every action's default keys and help, from the one
// list of actions (internal/actions). The Jobs view's own keys start
// disabled: that view enables them.
func defaultKeyMap() keyMap {
	var k keyMap
	fields := k.byName()
	for _, a := range actions.All() {
		b, ok := fields[a.Name]
		if !ok {
			continue // every action has a field: keys_actions_test.go checks it
		}
		*b = newBinding(a.Keys, a.Label, a.Name)
		if a.Shown != "" {
			b.SetHelp(a.Shown, a.Label)
		}
		b.SetEnabled(a.Group != actions.Jobs)
	}
	return k
}

// byName is each binding of k by the name of its action, the
// configuration file's.
func (k *keyMap) byName() map[string]*key.Binding {
	return map[string]*key.Binding{
		"up": &k.Up, "down": &k.Down, "page_up": &k.PageUp, "page_down": &k.PageDown, "top": &k.Top, "bottom": &k.Bottom,
		"next_view": &k.NextView, "prev_view": &k.PrevView, "enter": &k.Enter, "back": &k.Back, "filter": &k.Filter,
		"refresh": &k.Refresh, "help": &k.Help, "quit": &k.Quit, "command": &k.Command,
		"reap": &k.ReapOne, "reap_all": &k.ReapAll, "requeue": &k.Requeue, "repair_locks": &k.RepairLocks,
		"scan_orphans": &k.ScanOrphans, "pause": &k.TogglePause, "throttle": &k.Throttle, "history": &k.History, "undo": &k.Undo,
		"switch_namespace": &k.SwitchNamespace, "explain": &k.Explain, "timeline": &k.Timeline, "events": &k.Events, "copy": &k.Copy, "copy_command": &k.CopyCommand,
		"next_set": &k.NextSet, "sets_order": &k.SetsOrder, "mark": &k.Mark, "summary": &k.SetsSummary,
		"sets_requeue": &k.SetsRequeue, "sets_delete": &k.SetsDelete, "mark_all": &k.MarkAll, "find": &k.Find,
		"sets_edit": &k.SetsEdit, "sets_duplicate": &k.SetsDuplicate,
		"queue_mark_all": &k.QueueMarkAll, "queue_delete": &k.QueueDelete, "queue_park": &k.QueuePark,
		"confirm": &k.Confirm, "cancel": &k.Cancel, "force_requeue": &k.ForceRequeue,
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
		{k.ScanOrphans, k.History, k.Find, k.SwitchNamespace, k.Explain, k.Timeline, k.Events, k.Copy, k.CopyCommand, k.Refresh, k.Command, k.Help, k.Quit},
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
