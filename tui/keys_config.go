package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// rebind is k with the keys the configuration file gives (action name to
// keys, the names of config.Actions); each binding keeps its help text and
// whether it is enabled. q always cancels a dialog as well: a reflex q
// over a plan must not leave the screen.
func (k keyMap) rebind(bindings map[string][]string) keyMap {
	if len(bindings) == 0 {
		return k
	}
	fields := map[string]*key.Binding{
		"up": &k.Up, "down": &k.Down, "page_up": &k.PageUp, "page_down": &k.PageDown, "top": &k.Top, "bottom": &k.Bottom,
		"next_view": &k.NextView, "prev_view": &k.PrevView, "enter": &k.Enter, "back": &k.Back, "filter": &k.Filter,
		"refresh": &k.Refresh, "help": &k.Help, "quit": &k.Quit, "command": &k.Command,
		"reap": &k.ReapOne, "reap_all": &k.ReapAll, "requeue": &k.Requeue, "repair_locks": &k.RepairLocks,
		"scan_orphans": &k.ScanOrphans, "pause": &k.TogglePause, "throttle": &k.Throttle, "history": &k.History, "undo": &k.Undo,
		"switch_namespace": &k.SwitchNamespace, "explain": &k.Explain, "timeline": &k.Timeline, "copy": &k.Copy, "copy_command": &k.CopyCommand,
		"next_set": &k.NextSet, "sets_order": &k.SetsOrder, "mark": &k.Mark, "summary": &k.SetsSummary,
		"sets_requeue": &k.SetsRequeue, "sets_delete": &k.SetsDelete, "mark_all": &k.MarkAll, "find": &k.Find,
		"queue_mark_all": &k.QueueMarkAll, "queue_delete": &k.QueueDelete, "queue_park": &k.QueuePark,
		"sets_edit": &k.SetsEdit, "sets_duplicate": &k.SetsDuplicate,
		"confirm": &k.Confirm, "cancel": &k.Cancel, "force_requeue": &k.ForceRequeue,
	}
	for name, keys := range bindings {
		b, ok := fields[name]
		if !ok || len(keys) == 0 {
			continue // the file was checked: not reached
		}
		if name == "cancel" && !slices.Contains(keys, "q") {
			keys = append(keys[:len(keys):len(keys)], "q")
		}
		nb := key.NewBinding(key.WithKeys(keys...), key.WithHelp(keyLabel(keys), b.Help().Desc))
		nb.SetEnabled(b.Enabled())
		*b = nb
	}
	return k
}

// keyLabel is how the help shows keys: "space" for the space bar, several
// joined by "/", never a control or bidi character raw (the file refuses
// them; a key given another way is escaped all the same).
func keyLabel(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		if k == " " {
			k = "space"
		}
		out[i] = textsafe.Clean(k)
	}
	return strings.Join(out, "/")
}
