package tui

// This file is the table of the screen's action keys: for each, the
// binding it answers to, whether it writes, why it does nothing here and
// what it does. The table drives the keys (onKey), the footer and the help
// (a key with a reason is disabled there) and the hint shown when a
// disabled key is pressed. A new action is one entry here.

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// actionBinding is one action key.
type actionBinding struct {
	// binding is the action's binding in a key map.
	binding func(k *keyMap) *key.Binding
	// name is the action in the read-only hint.
	name string
	// write, set on the actions that write, is whether the Actor offers
	// this one; writes are refused in read-only mode.
	write func(w writes) bool
	// disabledReason says why the action does nothing here; "" when it
	// applies. The read-only rule is checked before it.
	disabledReason func(m Model) string
	// run opens the action's dialog (or starts it, for a read).
	run func(m Model) (Model, tea.Cmd)
}

// actionBindings is the table, in the order onKey tries it.
func actionBindings() []actionBinding {
	return []actionBinding{
		{
			binding: func(k *keyMap) *key.Binding { return &k.ReapOne },
			name:    "reap", write: func(w writes) bool { return w.reap != nil },
			disabledReason: func(m Model) string {
				p, ok := m.selectedPool()
				switch {
				case !ok:
					return m.keys.ReapOne.Help().Key + " reaps the selected dead pool: select one in the pools view"
				case p.Status != model.StatusDead:
					return fmt.Sprintf("%s reaps a dead pool; %s is %s", m.keys.ReapOne.Help().Key, textsafe.Clean(model.ShortID(p.ID)), p.Status)
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) {
				p, _ := m.selectedPool()
				return m.openAction(actionReap, reaper.Targets{PoolIDs: []string{p.ID}})
			},
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.ReapAll },
			name:    "reap", write: func(w writes) bool { return w.reap != nil },
			disabledReason: func(m Model) string {
				if m.snap == nil || m.counts.dead == 0 {
					return "no dead pool to reap"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) {
				return m.openAction(actionReap, reaper.Targets{AllDead: true})
			},
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.Requeue },
			name:    "requeue", write: func(w writes) bool { return w.requeue != nil },
			disabledReason: func(m Model) string {
				if _, ok := m.requeueTargets(); !ok {
					return m.keys.Requeue.Help().Key + " requeues the selected orphan (Orphans view) or a dead pool's lists (its detail view)"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.openAction(actionRequeue, reaper.Targets{}) },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.RepairLocks },
			name:    "repair locks", write: func(w writes) bool { return w.repair != nil },
			disabledReason: func(m Model) string {
				if _, ok := m.selectedDriftedJob(); !ok {
					return m.keys.RepairLocks.Help().Key + " repairs the locks of a job type marked DRIFT: select one in the Job types view"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.openAction(actionRepairLocks, reaper.Targets{}) },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.TogglePause },
			name:    "pause", write: func(w writes) bool { return w.pause != nil },
			disabledReason: func(m Model) string {
				if _, ok := m.pauseTarget(); !ok {
					return m.keys.TogglePause.Help().Key + " pauses or unpauses the selected job type: select one in the Job types view"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.openAction(m.togglePause(), reaper.Targets{}) },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.Throttle },
			name:    "throttle", write: func(w writes) bool { return w.throttle != nil },
			disabledReason: func(m Model) string {
				if _, ok := m.pauseTarget(); !ok {
					return m.keys.Throttle.Help().Key + " throttles the selected job type: select one in the Job types view"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.promptThrottle() },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.QueueMarkAll },
			name:    "mark all", disabledReason: func(m Model) string { return m.queueMarkAllReason() },
			run: func(m Model) (Model, tea.Cmd) { return m.toggleQueueMarkAll() },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.QueueDelete },
			name:    "delete from the queue", write: func(w writes) bool { return w.drain != nil },
			disabledReason: func(m Model) string {
				return m.queueDrainReason(m.keys.QueueDelete.Help().Key, "deletes")
			},
			run: func(m Model) (Model, tea.Cmd) { return m.planQueueDrain(reaper.DrainDelete) },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.QueuePark },
			name:    "park", write: func(w writes) bool { return w.drain != nil },
			disabledReason: func(m Model) string {
				return m.queueDrainReason(m.keys.QueuePark.Help().Key, "parks")
			},
			run: func(m Model) (Model, tea.Cmd) { return m.planQueueDrain(reaper.DrainPark) },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.Copy },
			name:    "copy", disabledReason: func(m Model) string { return m.copyDisabled(false) },
			run: func(m Model) (Model, tea.Cmd) { return m.copyNow(false) },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.CopyCommand },
			name:    "copy", disabledReason: func(m Model) string { return m.copyDisabled(true) },
			run: func(m Model) (Model, tea.Cmd) { return m.copyNow(true) },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.ScanOrphans },
			name:    "the orphan scan",
			disabledReason: func(m Model) string {
				if m.rd.scan == nil {
					return "the orphan scan is not available here"
				}
				return ""
			},
			// Nothing while a scan runs.
			run: func(m Model) (Model, tea.Cmd) { return m.startScan() },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.History },
			name:    "the history",
			disabledReason: func(m Model) string {
				if m.rd.history == nil {
					return "history is not available here"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.openHistory() },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.Find },
			name:    "find",
			disabledReason: func(m Model) string {
				if m.rd.find == nil {
					return "find is not available here"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.askFind() },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.Undo },
			name:    "undo", write: func(w writes) bool { return w.undo != nil },
			disabledReason: func(m Model) string {
				if m.top().selected().action == nil {
					return "U undoes the action under the cursor: open the history with u"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.openUndo(*m.top().selected().action) },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.SwitchNamespace },
			name:    "the namespace switch",
			disabledReason: func(m Model) string {
				if _, ok := m.switchTarget(); !ok {
					return m.keys.SwitchNamespace.Help().Key + " opens another namespace when this one holds no gocraft/work keys and another does"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.switchNamespace() },
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.Explain },
			name:    "explain",
			disabledReason: func(m Model) string {
				if m.rd.explain == nil {
					return "explain is not available here"
				}
				if _, ok := m.explainTarget(); !ok {
					return m.keys.Explain.Help().Key + " explains the selected job type or pool: select one in the Job types or Pools view"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) {
				s, _ := m.explainTarget()
				return m.openExplain(s)
			},
		},
		{
			binding: func(k *keyMap) *key.Binding { return &k.Timeline },
			name:    "the timeline",
			disabledReason: func(m Model) string {
				if m.rd.timeline == nil {
					return "the timeline is not available here"
				}
				return ""
			},
			run: func(m Model) (Model, tea.Cmd) { return m.openTimeline(timelineDefaultSince, true) },
		},
	}
}

// reason is why b does nothing here, the read-only rule first.
func (b actionBinding) reason(m Model) string {
	if b.write != nil && m.opts.ReadOnly {
		return "read-only: " + b.name + " is disabled"
	}
	if b.write != nil && !b.write(m.wr) {
		return b.name + " is not available here"
	}
	return b.disabledReason(m)
}

// keyMap is the key map as it applies here: the view's own bindings, each
// action enabled only where its reason is empty, esc where it goes back or
// clears the filter. The footer, the help and onKey all read it.
func (m Model) keyMap() keyMap {
	k := m.top().keys(m.keys)
	for _, b := range actionBindings() {
		if m.viewTakes(b) {
			b.binding(&k).SetEnabled(b.reason(m) == "")
		}
	}
	if !m.opened() {
		k.Back.SetEnabled(m.currentFilter() != "")
	}
	k.Views = m.viewKeys()
	return m.pauseLabel(k)
}

// viewTakes reports whether the view on screen leaves b's key to the
// actions (the help, for one, does not).
func (m Model) viewTakes(b actionBinding) bool {
	k := m.top().keys(m.keys)
	return b.binding(&k).Enabled()
}

// onActionKey runs the action msg is the key of, or shows why it does
// nothing here; ok is false when msg is no action's key.
func (m Model) onActionKey(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	for _, b := range actionBindings() {
		if !key.Matches(msg, *b.binding(&m.keys)) || !m.viewTakes(b) {
			continue
		}
		if r := b.reason(m); r != "" {
			mm, cmd := m.setStatus(r, false)
			return mm, cmd, true
		}
		mm, cmd := b.run(m)
		return mm, cmd, true
	}
	return m, nil, false
}
