package tui

// This file is the table of the screen's action keys: for each, the
// binding it answers to, whether it writes, why it does nothing here and
// what it does. The table drives the keys (onKey), the footer and the help
// (a key with a reason is disabled there) and the hint shown when a
// disabled key is pressed. A new action is one entry here (or a line
// here calling a function of its view's file that returns the entry, as
// eventsAction does), after its line in internal/actions.

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// actionBinding is one action key.
type actionBinding struct {
	// id is the action, its binding the key map's for it.
	id actions.ID
	// name is the action in the read-only hint.
	name string
	// write, set on the actions that write, is whether Writes has this one;
	// writes are refused in read-only mode.
	write func(w Writes) bool
	// look finds what the action acts on here, once: why it does nothing
	// here ("" when it applies) and, when it applies, what its run takes.
	// The read-only rule is checked before it.
	look func(m Model) (actionTarget, string)
	// run opens the action's dialog (or starts it, for a read) on what
	// look found.
	run func(m Model, t actionTarget) (Model, tea.Cmd)
}

// actionTarget is what an action's look found to act on, handed to its
// run as it was found.
type actionTarget struct {
	// targets are the pools a reap takes.
	targets reaper.Targets
	// keys are the in-progress lists a requeue takes.
	keys []string
	// job is the job type a lock repair, a pause or a throttle takes.
	job model.JobType
	// subject is what explain explains.
	subject explainSubject
	// entry is the action of the history an undo takes.
	entry journal.Summary
	// item is what a copy copies.
	item copyItem
	// namespace is where the namespace switch goes.
	namespace string
	// drain is the queue's query a delete or a park takes.
	drain drainQuery
}

// applies is a look for an action that needs nothing found: it applies
// unless reason says otherwise.
func applies(reason string) (actionTarget, string) { return actionTarget{}, reason }

// actionBindings is the table, in the order onKey tries it.
func actionBindings() []actionBinding {
	return []actionBinding{
		{
			id:   actions.Reap,
			name: "reap", write: func(w Writes) bool { return w.Reap != nil },
			look: func(m Model) (actionTarget, string) {
				p, ok := m.selectedPool()
				switch {
				case !ok:
					return applies(m.keys.get(actions.Reap).Help().Key + " reaps the selected dead pool: select one in the pools view")
				case p.Status != model.StatusDead:
					return applies(fmt.Sprintf("%s reaps a dead pool; %s is %s", m.keys.get(actions.Reap).Help().Key, textsafe.Clean(model.ShortID(p.ID)), p.Status))
				}
				return actionTarget{targets: reaper.Targets{PoolIDs: []string{p.ID}}}, ""
			},
			run: reapRun,
		},
		{
			id:   actions.ReapAll,
			name: "reap", write: func(w Writes) bool { return w.Reap != nil },
			look: func(m Model) (actionTarget, string) {
				if m.snap == nil || m.counts.dead == 0 {
					return applies("no dead pool to reap")
				}
				return actionTarget{targets: reaper.Targets{AllDead: true}}, ""
			},
			run: reapRun,
		},
		{
			id:   actions.Requeue,
			name: "requeue", write: func(w Writes) bool { return w.Requeue != nil },
			look: func(m Model) (actionTarget, string) {
				keys, ok := m.requeueTargets()
				if !ok {
					return applies(m.keys.get(actions.Requeue).Help().Key + " requeues the selected orphan (Orphans view) or a dead pool's lists (its detail view)")
				}
				return actionTarget{keys: keys}, ""
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) {
				return m.openAction(func(m Model) (action, error) { return m.buildRequeue(t.keys) })
			},
		},
		{
			id:   actions.RepairLocks,
			name: "repair locks", write: func(w Writes) bool { return w.Repair != nil },
			look: func(m Model) (actionTarget, string) {
				jt, ok := m.selectedDriftedJob()
				if !ok {
					return applies(m.keys.get(actions.RepairLocks).Help().Key + " repairs the locks of a job type marked DRIFT: select one in the Job types view")
				}
				return actionTarget{job: jt}, ""
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) {
				return m.openAction(func(m Model) (action, error) { return m.buildRepairLocks(t.job.Name) })
			},
		},
		{
			id:   actions.Pause,
			name: "pause", write: func(w Writes) bool { return w.Pause != nil },
			look: func(m Model) (actionTarget, string) {
				jt, ok := m.pauseTarget()
				if !ok {
					return applies(m.keys.get(actions.Pause).Help().Key + " pauses or unpauses the selected job type: select one in the Job types view")
				}
				return actionTarget{job: jt}, ""
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) {
				return m.openAction(func(m Model) (action, error) { return m.buildPause(t.job) })
			},
		},
		{
			id:   actions.Throttle,
			name: "throttle", write: func(w Writes) bool { return w.Throttle != nil },
			look: func(m Model) (actionTarget, string) {
				jt, ok := m.pauseTarget()
				if !ok {
					return applies(m.keys.get(actions.Throttle).Help().Key + " throttles the selected job type: select one in the Job types view")
				}
				return actionTarget{job: jt}, ""
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) { return m.promptThrottle(t.job) },
		},
		{
			id:   actions.QueueMarkAll,
			name: "mark all",
			look: func(m Model) (actionTarget, string) { return applies(m.queueMarkAllReason()) },
			run:  func(m Model, _ actionTarget) (Model, tea.Cmd) { return m.toggleQueueMarkAll() },
		},
		{
			id:   actions.QueueDelete,
			name: "delete from the queue", write: func(w Writes) bool { return w.Drain != nil },
			look: func(m Model) (actionTarget, string) {
				return m.queueDrainLook(m.keys.get(actions.QueueDelete).Help().Key, "deletes")
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) { return m.planQueueDrain(reaper.DrainDelete, t.drain) },
		},
		{
			id:   actions.QueuePark,
			name: "park", write: func(w Writes) bool { return w.Drain != nil },
			look: func(m Model) (actionTarget, string) {
				return m.queueDrainLook(m.keys.get(actions.QueuePark).Help().Key, "parks")
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) { return m.planQueueDrain(reaper.DrainPark, t.drain) },
		},
		{
			id:   actions.Copy,
			name: "copy",
			look: func(m Model) (actionTarget, string) {
				it, r := m.copyLook(false)
				return actionTarget{item: it}, r
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) { return m.copyIt(t.item, false) },
		},
		{
			id:   actions.CopyCommand,
			name: "copy",
			look: func(m Model) (actionTarget, string) {
				it, r := m.copyLook(true)
				return actionTarget{item: it}, r
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) { return m.copyIt(t.item, true) },
		},
		{
			id:   actions.ScanOrphans,
			name: "the orphan scan",
			look: func(m Model) (actionTarget, string) {
				if m.rd.Scan == nil {
					return applies("the orphan scan is not available here")
				}
				return applies("")
			},
			// Nothing while a scan runs.
			run: func(m Model, _ actionTarget) (Model, tea.Cmd) { return m.startScan() },
		},
		{
			id:   actions.History,
			name: "the history",
			look: func(m Model) (actionTarget, string) {
				if m.rd.History == nil {
					return applies("history is not available here")
				}
				return applies("")
			},
			run: func(m Model, _ actionTarget) (Model, tea.Cmd) { return m.openHistory() },
		},
		{
			id:   actions.Find,
			name: "find",
			look: func(m Model) (actionTarget, string) {
				if m.rd.Find == nil {
					return applies("find is not available here")
				}
				return applies("")
			},
			run: func(m Model, _ actionTarget) (Model, tea.Cmd) { return m.askFind() },
		},
		{
			id:   actions.Undo,
			name: "undo", write: func(w Writes) bool { return w.Undo != nil },
			look: func(m Model) (actionTarget, string) {
				if v, ok := m.top().(actionPicker); ok {
					if a, ok := v.pickedAction(); ok {
						return actionTarget{entry: a}, ""
					}
				}
				return applies("U undoes the action under the cursor: open the history with u")
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) { return m.openUndo(t.entry) },
		},
		{
			id:   actions.SwitchNamespace,
			name: "the namespace switch",
			look: func(m Model) (actionTarget, string) {
				to, ok := m.switchTarget()
				if !ok {
					return applies(m.keys.get(actions.SwitchNamespace).Help().Key + " opens another namespace when this one holds no gocraft/work keys and another does")
				}
				return actionTarget{namespace: to}, ""
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) { return m.switchNamespace(t.namespace) },
		},
		{
			id:   actions.Explain,
			name: "explain",
			look: func(m Model) (actionTarget, string) {
				if m.rd.Explain == nil {
					return applies("explain is not available here")
				}
				s, ok := m.explainTarget()
				if !ok {
					return applies(m.keys.get(actions.Explain).Help().Key + " explains the selected job type or pool: select one in the Job types or Pools view")
				}
				return actionTarget{subject: s}, ""
			},
			run: func(m Model, t actionTarget) (Model, tea.Cmd) { return m.openExplain(t.subject) },
		},
		{
			id:   actions.Timeline,
			name: "the timeline",
			look: func(m Model) (actionTarget, string) {
				if m.rd.Timeline == nil {
					return applies("the timeline is not available here")
				}
				return applies("")
			},
			run: func(m Model, _ actionTarget) (Model, tea.Cmd) { return m.openTimeline(timelineDefaultSince, true) },
		},
		eventsAction(),
	}
}

// reapRun opens the dialog of the reap of what the look found.
func reapRun(m Model, t actionTarget) (Model, tea.Cmd) {
	return m.openAction(func(m Model) (action, error) { return m.buildReap(t.targets) })
}

// check is why b does nothing here, the read-only rule first, or what it
// acts on: one look-up for the key map, the key and the command line.
func (b actionBinding) check(m Model) (actionTarget, string) {
	if b.write != nil && m.opts.ReadOnly {
		return applies("read-only: " + b.name + " is disabled")
	}
	if b.write != nil && !b.write(m.wr) {
		return applies(b.name + " is not available here")
	}
	return b.look(m)
}

// keyMap is the key map as it applies here: the view's own bindings, each
// action enabled only where its reason is empty, esc where it goes back or
// clears the filter. The footer, the help and onKey all read it.
func (m Model) keyMap() keyMap {
	k := m.top().keys(m.keys)
	// What the view leaves to the actions, built once: a key map per
	// action would be one more copy of it per frame for each.
	taken := k
	for _, b := range actionBindings() {
		if taken.get(b.id).Enabled() {
			_, r := b.check(m)
			k.enable(b.id, r == "")
		}
	}
	if !m.opened() {
		k.enable(actions.Back, m.currentFilter() != "")
	}
	k.Views = m.viewKeys()
	return m.pauseLabel(k)
}

// viewTakes reports whether the view on screen leaves b's key to the
// actions (the help, for one, does not).
func (m Model) viewTakes(b actionBinding) bool {
	k := m.top().keys(m.keys)
	return k.get(b.id).Enabled()
}

// onActionKey runs the action msg is the key of, or shows why it does
// nothing here; ok is false when msg is no action's key.
func (m Model) onActionKey(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	for _, b := range actionBindings() {
		if !key.Matches(msg, m.keys.get(b.id)) || !m.viewTakes(b) {
			continue
		}
		t, r := b.check(m)
		if r != "" {
			mm, cmd := m.setStatus(r, false)
			return mm, cmd, true
		}
		mm, cmd := b.run(m, t)
		return mm, cmd, true
	}
	return m, nil, false
}
