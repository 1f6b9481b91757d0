package tui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// Update is the root update: global messages and keys, then the open
// dialog, then the focused view. After every message the layout is
// measured again, so the views always know their size.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	shown, dialog := m.showsWorkers(), m.onScreen()
	m, cmd := m.update(msg)
	m, poll := m.workersShown(shown)
	m, reread := m.rereadShown()
	m = m.relayout()
	m, read := m.dialogOnScreen(dialog)
	return m, tea.Batch(cmd, poll, reread, read)
}

// showsWorkers reports whether the Workers view is on show: the only
// view that uses the workers' observations, which the regular poll reads
// only then.
func (m Model) showsWorkers() bool {
	if v, ok := m.top().(workersShower); ok {
		return v.showsWorkers() && !m.hidden
	}
	return false
}

// workersShown polls at once when the Workers view has just come on show
// (it was not before: shown) and the last snapshot did not read the
// workers, so that the view shows what it has, saying how old, for one
// poll's time only. The poll is of a new generation: one in flight, which
// does not read the workers, is dropped when it returns and this one
// starts then (still one at a time).
func (m Model) workersShown(shown bool) (Model, tea.Cmd) {
	if shown || !m.showsWorkers() || (m.snap != nil && m.snap.Workers != nil) {
		return m, nil
	}
	m.gen++
	if m.inFlight {
		return m, nil
	}
	return m.startFetch()
}

// setHidden marks the screen hidden behind a fleet's own view, or shown;
// shown on the Workers view, it reads the workers at once (workersShown).
func (m Model) setHidden(hidden bool) (Model, tea.Cmd) {
	shown, dialog := m.showsWorkers(), m.onScreen()
	m.hidden = hidden
	m, poll := m.workersShown(shown)
	m, read := m.dialogOnScreen(dialog)
	return m, tea.Batch(poll, read)
}

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tickMsg:
		if msg.gen != m.gen || m.inFlight {
			return m, nil // armed before a refresh, or a poll already runs
		}
		return m.startFetch()
	case snapshotMsg:
		return m.onSnapshot(msg)
	case sweepMsg:
		return m.onSweep(msg)
	case healthMsg:
		return m.onHealth(msg), nil
	case namespaceSearchMsg:
		return m.onNamespaceSearch(msg)
	case sweepTickMsg:
		if msg.gen != m.sweep.gen || m.sweep.running {
			return m, nil
		}
		return m.startSweep()
	case clockMsg:
		return m, m.clockCmd()
	case dialogReadMsg:
		return m.onDialogRead(msg), nil
	case peekMsg, queuePageMsg, historyMsg, historyActionMsg, explainMsg, timelineMsg, findMsg:
		return m.eachOpen(msg)
	case actionProgressMsg:
		if m.running != nil && m.running.seq == msg.seq {
			// A new value, not a write through the pointer: a model handed
			// out before (a test's, a fleet's copy) keeps what it drew.
			r := *m.running
			r.moved, r.total = msg.moved, msg.total
			m.running = &r
		}
		return m, waitActionCmd(msg.ch)
	case actionDoneMsg:
		return m.onActionDone(msg)
	case undoPlanMsg:
		return m.onUndoPlan(msg)
	case pushMsg:
		return m.onPush(msg)
	case windowMsg:
		return m.showWindow(msg.w)
	case placeMsg:
		return m.jumpToPlace(msg.p)
	case queueDrainPlanMsg:
		return m.onQueueDrainPlan(msg)
	case jobEditedMsg:
		return m.onJobEdited(msg)
	case editPlanMsg:
		return m.onEditPlan(msg)
	case setsPageMsg, setsScanStepMsg, setsScanWakeMsg:
		return m.eachTab(msg)
	case setsPlanMsg:
		return m.onSetsPlan(msg)
	case scanStepMsg:
		return m.onScanStep(msg)
	case scanWakeMsg:
		return m.onScanWake(msg)
	case scanTickMsg:
		if msg.gen != m.scanGen {
			return m, nil
		}
		return m.startScan()
	case cmdLinesSavedMsg:
		return m.saved(msg)
	case statusMsg:
		return m.setStatus(msg.text, msg.isErr)
	case statusClearMsg:
		if msg.id == m.statusID {
			m.status = statusLine{}
		}
		return m, nil
	case tea.KeyMsg:
		return m.onKeys(msg)
	}
	return m, nil
}

// onKeys takes the runes of one message as key presses one after the
// other: keys typed fast, or delivered together over a slow link, arrive
// as one message ("jjj"). A dialog opened by one of them gets the rest,
// and its y does nothing then: an answer counts only once the dialog has
// been on screen (dialog_read.go). A paste is text, not keys: it goes to
// the filter whole.
func (m Model) onKeys(msg tea.KeyMsg) (Model, tea.Cmd) {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.filtering || m.dialog != nil {
		// A burst typed into the filter is text; one that arrives while a
		// dialog is on screen matches none of its keys and does nothing.
		return m.oneKey(msg)
	}
	var cmds []tea.Cmd
	for _, r := range msg.Runes {
		var cmd tea.Cmd
		m, cmd = m.oneKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

// oneKey is one key press: the Jobs view's when it is on top (onSetsKey),
// else the root's (onKey).
func (m Model) oneKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	if m, cmd, ok := m.stopKey(msg); ok {
		return m, cmd
	}
	if m, cmd, ok := m.viewTakesKey(msg); ok {
		return m, cmd
	}
	if m, cmd, ok := m.cmdLineKey(msg); ok {
		return m, cmd
	}
	if m.setsTakes(msg) {
		return m.onSetsKey(msg)
	}
	m, cmd := m.onKey(msg)
	m, load := m.setsShown()
	if load == nil {
		return m, cmd
	}
	return m, tea.Batch(cmd, load)
}

// viewTakesKey gives msg to the view on top first when it takes it
// (keyTaker): a query being typed, esc that drops marks. ok is false for
// every other key, and while a dialog, the filter or the command line has
// the keys.
func (m Model) viewTakesKey(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	t, ok := m.top().(keyTaker)
	if !ok || m.dialog != nil || m.filtering || m.cmdline.open || msg.Type == tea.KeyCtrlC || !t.takesKey(msg) {
		return m, nil, false
	}
	m, cmd := m.updateTop(msg)
	return m, cmd, true
}

// startFetch starts a poll of the current generation. Callers make sure no
// poll is in flight.
func (m Model) startFetch() (Model, tea.Cmd) {
	m.inFlight = true
	return m, fetchCmd(m.pollFunc(), m.gen, m.opts.FetchTimeout, m.opts.Now)
}

// pollFunc is the next poll, reading every list of the pool open in the
// detail view and of the job types the last sweep found drifted, and the
// workers' observations while the Workers view is on show.
func (m Model) pollFunc() pollFunc {
	// While the screen sweeps, the drift it shows is the sweep's alone.
	req := redisq.PollRequest{JobTypes: m.sweep.driftJobs(), Workers: m.showsWorkers(), NoDrift: m.sweep.enabled}
	for _, v := range m.stack {
		if d, ok := v.(poolDetail); ok {
			if p, ok := d.detailPool(); ok {
				req.Open = p.ID
			}
		}
	}
	p := m.rd.Poll
	return func(ctx context.Context) (*model.Snapshot, error) { return p.Poll(ctx, req) }
}

// refresh polls and sweeps now. It starts a new generation, so a poll
// already in flight (which may have read Redis before an action changed it)
// is dropped when it returns, and a new one starts then: still one at a
// time. A sweep already running is followed by another at once.
func (m Model) refresh() (Model, tea.Cmd) {
	m.gen++
	m, sweep := m.startSweep()
	if m.inFlight {
		return m, sweep
	}
	m, fetch := m.startFetch()
	if sweep == nil {
		return m, fetch
	}
	return m, tea.Batch(fetch, sweep)
}

func (m Model) tickCmd(d time.Duration) tea.Cmd {
	gen := m.gen
	return m.after(d, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// backoff is the wait before retry number failures: the interval, doubled
// per failure, at most maxWait.
func backoff(interval, maxWait time.Duration, failures int) time.Duration {
	d := interval
	for i := 1; i < failures && d < maxWait; i++ {
		d *= 2
	}
	return min(d, maxWait)
}

func (m Model) onSnapshot(msg snapshotMsg) (Model, tea.Cmd) {
	m.inFlight = false
	if msg.gen != m.gen {
		// Stale: a refresh asked for newer data while this poll ran.
		return m.startFetch()
	}
	if msg.err != nil {
		// Keep the last snapshot on screen, marked stale; retry later.
		m.err = msg.err
		m.failures++
		d := backoff(m.opts.Interval, m.opts.MaxBackoff, m.failures)
		m.retryAt = msg.at.Add(d)
		return m, m.tickCmd(d)
	}
	recovered := m.failures > 0
	m.err, m.failures = nil, 0
	snap := m.withSearch(m.adjusted(msg.snap))
	m, search := m.searchNamespaces(snap)
	m.fetchedAt = msg.at
	m.history = m.history.add(snap)
	if snap != m.snap {
		m.polls++ // a poll that brought a snapshot: the views follow it
	}
	m = m.setSnap(snap)
	m.pollEvery = slowWait(m.opts.Interval, msg.took)
	tick := m.tickCmd(m.pollEvery)
	if recovered && m.sweep.err != nil && !m.sweep.running {
		// Redis is back after polls failed, and so did the last sweep:
		// sweep now rather than show its error until the next one is due.
		var sweep tea.Cmd
		m, sweep = m.startSweep()
		return m, tea.Batch(tick, sweep, search)
	}
	return m, tea.Batch(tick, search)
}

// setSnap shows a snapshot in every view.
func (m Model) setSnap(snap *model.Snapshot) Model {
	m.snap = snap
	m.counts = countSnapshot(snap)
	return m.eachView(snapshotShown{snap: snap, hist: m.history, poll: m.polls})
}

// slowWait is the wait before the next poll after one that took took: the
// interval while polls take at most a tenth of it; otherwise ten times the
// poll's time, at most ten times the interval, so that a struggling Redis
// spends at most about a tenth of its time on the screen. One quick poll
// brings the interval back.
func slowWait(interval, took time.Duration) time.Duration {
	if took*10 <= interval {
		return interval
	}
	return min(took*10, interval*10)
}

// focused is the view of the focused tab.
func (m Model) focused() view { return m.tabs[m.tab] }

// setFocused stores the focused view back in its slot. The tabs slice is
// copied first: the model is a value, and an older copy must not change.
func (m Model) setFocused(v view) Model {
	m.tabs = append([]view(nil), m.tabs...)
	m.tabs[m.tab] = v
	return m
}

// selectedPool is the pool under the cursor (or shown in the detail view).
func (m Model) selectedPool() (model.Pool, bool) {
	if v, ok := m.top().(poolPicker); ok {
		return v.pickedPool()
	}
	return model.Pool{}, false
}

// selectedJobType is the job type under the cursor (or explained).
func (m Model) selectedJobType() (model.JobType, bool) {
	if v, ok := m.top().(jobTypePicker); ok {
		return v.pickedJobType()
	}
	return model.JobType{}, false
}

// currentFilter is the focused view's filter ("" for a view without one).
func (m Model) currentFilter() string {
	if f, ok := m.focused().(filterable); ok {
		return f.filterText()
	}
	return ""
}

// setFilter filters the focused view's rows, when it has a filter.
func (m Model) setFilter(f string) Model {
	if v, ok := m.focused().(filterable); ok {
		return m.setFocused(v.setFilter(f))
	}
	return m
}

func (m Model) onKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	if msg.Type == tea.KeyCtrlC {
		return m, tea.Quit
	}
	if m.dialog != nil {
		return m.onDialogKey(msg)
	}
	if m.filtering {
		return m.onFilterKey(msg)
	}
	k := m.keyMap()
	if m, ok := m.onViewKey(msg); ok {
		return m, nil
	}
	switch {
	case key.Matches(msg, k.get(actions.Quit)):
		if m.running != nil {
			// Quitting now would lose the result and the audit line.
			return m.setStatus(m.running.title+" is running: wait for it, or ctrl+c to quit anyway", true)
		}
		return m, tea.Quit
	case key.Matches(msg, k.get(actions.Help)):
		if t, ok := m.top().(toggled); ok && key.Matches(msg, t.closedBy(k)) {
			return m.pop(), nil
		}
		return m.push(newHelpView(k, m.help, costLine(m.snap, m.pollEvery)))
	case key.Matches(msg, k.get(actions.Refresh)):
		// The views on the stack read again what they show; with none,
		// the tab on screen does (the Jobs view's page).
		m, load := m.eachOpen(loadMsg{})
		if !m.opened() {
			m, load = m.updateTop(loadMsg{})
		}
		m, cmd := m.refresh()
		return m, tea.Batch(cmd, load)
	case key.Matches(msg, k.get(actions.NextView)), key.Matches(msg, k.get(actions.PrevView)):
		step := 1
		if key.Matches(msg, k.get(actions.PrevView)) {
			step = len(m.tabs) - 1
		}
		m.stack = nil
		m.tab = (m.tab + step) % len(m.tabs)
		return m, nil
	case key.Matches(msg, k.get(actions.Filter)):
		m.filtering = true
		m.filter = m.filter.set(m.currentFilter())
		return m, nil
	}
	if m, cmd, ok := m.onActionKey(msg); ok {
		return m, cmd
	}
	if key.Matches(msg, k.get(actions.Back)) {
		if m.opened() {
			return m.pop(), nil
		}
		return m.setFilter(""), nil
	}
	// The view on top takes the rest; what enter opens, it says (pushCmd).
	return m.updateTop(msg)
}

func (m Model) onFilterKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch msg.Type {
	case tea.KeyEnter:
		m.filtering = false
		return m, nil
	case tea.KeyEsc:
		m.filtering = false
		m.filter = m.filter.set("")
		return m.setFilter(""), nil
	}
	m.filter = m.filter.update(msg)
	return m.setFilter(m.filter.Value()), nil
}

// openAction plans an action from the last snapshot with build and opens
// the confirm dialog. Nothing is written before 'y'.
func (m Model) openAction(build func(m Model) (action, error)) (Model, tea.Cmd) {
	if m.running != nil {
		return m.setStatus(fmt.Sprintf("%s is still running: wait for it to finish", m.running.title), true)
	}
	if m.snap == nil {
		return m.setStatus("no data yet", true)
	}
	a, err := build(m)
	if err != nil {
		return m.setStatus(err.Error(), true)
	}
	if m.opts.Target != "" {
		a.title = oneLine(m.opts.Target) + ": " + a.title
	}
	m = m.openDialog(confirmDialog{action: a})
	if m.err != nil {
		m.dialog.staleFor = m.opts.Now().Sub(m.fetchedAt)
	}
	return m, nil
}

func (m Model) onDialogKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case !m.dialog.read && (key.Matches(msg, m.keys.get(actions.Confirm)) || m.dialog.alt != nil && key.Matches(msg, m.dialog.alt.binding)):
		return m.unreadAnswer(msg.String())
	case m.dialog.alt != nil && key.Matches(msg, m.dialog.alt.binding):
		run := m.dialog.alt.run
		m.dialog = nil
		return run(m)
	case m.dialog.blocked != "" && key.Matches(msg, m.keys.get(actions.Confirm)):
		return m, nil // the dialog says why, and what to press instead
	case key.Matches(msg, m.keys.get(actions.Confirm)):
		a := m.dialog.action
		m.dialog = nil
		if m.running != nil {
			return m.setStatus(fmt.Sprintf("%s is still running", m.running.title), true)
		}
		m.actionSeq++
		ctx, stop := actionContext(a)
		m.running = &runningAction{seq: m.actionSeq, kind: a.kind, title: a.running, total: a.total, stop: stop, after: a.after}
		entry := audit.Entry{Target: m.opts.Target, Address: m.opts.Address, Namespace: m.opts.Namespace, Action: string(a.kind), Targets: a.targets}
		return m, runActionCmd(ctx, a, m.actionSeq, m.opts.ActionTimeout, m.opts.Audit, entry, m.opts.Now)
	case key.Matches(msg, m.keys.get(actions.Cancel)):
		m.dialog = nil
		return m.setStatus("cancelled: nothing was changed", false)
	}
	if d, ok := m.dialog.rated(msg); ok {
		m.dialog = &d
		return m, nil
	}
	if d, ok := m.dialog.scrolled(msg, m.keys, m.lay.width, m.lay.body); ok {
		m.dialog = &d
	}
	return m, nil
}

func (m Model) onActionDone(msg actionDoneMsg) (Model, tea.Cmd) {
	if m.running == nil || m.running.seq != msg.seq {
		return m, nil
	}
	after, kind := m.running.after, m.running.kind
	if m.running.stop != nil {
		m.running.stop() // releases the context
	}
	m.running = nil
	text, isErr := msg.outcome.summary, msg.outcome.failed
	if msg.err != nil {
		text, isErr = "failed: "+msg.err.Error(), true
		if msg.outcome.summary != "" {
			text += " (" + msg.outcome.summary + ")"
		}
	}
	if msg.auditErr != nil {
		text += "; audit log not written: " + msg.auditErr.Error()
		isErr = true
	}
	m, clear := m.setStatus(text, isErr)
	if len(msg.outcome.emptied) > 0 {
		m = m.dropOrphans(msg.outcome.emptied)
	}
	// The views hear of the end first (a queue drops its marks, the Jobs
	// view reads its page again), then the action's own after runs: what
	// they change (marks dropped, a view closed) is what the views then
	// read again.
	m, tabsDone := m.eachTab(actionDone{kind: kind})
	m, done := m.eachOpen(actionDone{kind: kind})
	var more tea.Cmd
	if after != nil {
		m, more = after(m)
	}
	m, load := m.eachOpen(loadMsg{})
	m, fetch := m.refresh()
	return m, tea.Batch(clear, done, fetch, load, tabsDone, more)
}

// dropOrphans takes lists a requeue emptied out of the Orphans view.
func (m Model) dropOrphans(keys []string) Model {
	gone := make(map[string]bool, len(keys))
	for _, k := range keys {
		gone[k] = true
	}
	var keep []model.InProgressList
	for _, o := range m.orphanList {
		if !gone[o.Key] {
			keep = append(keep, o)
		}
	}
	return m.setOrphans(keep)
}

// setOrphans keeps the orphans found and gives them to the views.
func (m Model) setOrphans(o []model.InProgressList) Model {
	m.orphanList = o
	return m.eachView(orphansFound{list: o})
}

// setStatus shows a message that clears itself after StatusTTL.
func (m Model) setStatus(text string, isErr bool) (Model, tea.Cmd) {
	m.statusID++
	id := m.statusID
	m.status = statusLine{text: text, isErr: isErr}
	return m, m.after(m.opts.StatusTTL, func(time.Time) tea.Msg { return statusClearMsg{id: id} })
}

// relayout renders the header and the footer of the next frame, measures
// them and gives each view its size; View draws the body between them.
// They are rendered once per frame, here, after every message.
func (m Model) relayout() Model {
	now := m.opts.Now()
	m.help.Width = m.width
	m.header, m.footer = m.renderHeader(now), m.renderFooter()
	m.lay = computeLayout(m.width, m.height, height(m.header), height(m.footer))
	body := max(m.lay.body, 1)
	m.tabs = append([]view(nil), m.tabs...)
	for i, v := range m.tabs {
		m.tabs[i] = v.setSize(m.width, body)
	}
	m.stack = append([]view(nil), m.stack...)
	for i, v := range m.stack {
		m.stack[i] = v.setSize(m.width, body)
	}
	return m
}
