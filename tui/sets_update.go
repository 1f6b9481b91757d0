package tui

// This file routes the Jobs view's keys and messages: its page reads, its
// summary scan (paced like the orphan scan, one step at a time) and the
// refresh after one of its actions. The root's Update routes them here
// (updateSets) and each key to onSetsKey; its actions' after is
// afterSetsAction.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// setsPageMsg is one page read of the Jobs view, with the three set sizes.
type setsPageMsg struct {
	seq int
	// reread is set on a read that follows a poll (sets_reread.go),
	// chase on one that follows the member under the cursor to the page
	// new members pushed it onto.
	reread, chase bool
	page          redisq.SetPage
	counts        *redisq.SetCounts
	err           error
}

// setsScanStepMsg is one step of a summary scan.
type setsScanStepMsg struct {
	gen      uint64
	scan     SetScan // nil once the scan ended or could not start
	jobs     []model.SetJob
	progress redisq.SetScanProgress
	err      error
	took     time.Duration
}

// setsScanWakeMsg ends the pause after a summary scan step.
type setsScanWakeMsg struct {
	gen  uint64
	scan SetScan
}

// setsPageCmd reads one page (a filtered one scans the set, paced) and the
// sizes of the three sets.
func setsPageCmd(r JobSetReader, set model.SetName, f redisq.SetFilter, o redisq.PageOptions, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		msg := setsPageMsg{seq: seq}
		msg.page, msg.err = r.SetPage(ctx, set, f, o, redisq.ScanOptions{Paced: true})
		if msg.err != nil {
			return msg
		}
		if c, err := r.SetCounts(ctx); err == nil {
			msg.counts = &c
		}
		return msg
	}
}

// setsScanStepCmd makes one step of a summary scan, starting it when s is
// nil; a scan that ends (done or failed) is closed here.
func setsScanStepCmd(sc SetScanner, s SetScan, set model.SetName, q *model.Query, gen uint64, timeout time.Duration, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		start := now()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		msg := setsScanStepMsg{gen: gen, scan: s}
		if s == nil {
			s, msg.err = sc.StartSetScan(ctx, set, redisq.SetFilter{Query: q})
			if msg.err != nil {
				msg.took = now().Sub(start)
				return msg
			}
			msg.scan = s
		}
		msg.jobs, msg.progress, msg.err = s.Step(ctx)
		if msg.err != nil || msg.progress.Done {
			_ = s.Close()
			msg.scan = nil
		}
		msg.took = now().Sub(start)
		return msg
	}
}

// closeSetScanCmd releases the connection of a summary scan that was
// dropped.
func closeSetScanCmd(s SetScan) tea.Cmd {
	if s == nil {
		return nil
	}
	return func() tea.Msg {
		_ = s.Close()
		return nil
	}
}

// setsTab is the index of the Jobs view among the tabs, -1 without one.
func (m Model) setsTab() int {
	for i, v := range m.tabs {
		if _, ok := v.(setsView); ok {
			return i
		}
	}
	return -1
}

// setsView returns the Jobs view; ok is false when the screen has none.
func (m Model) setsView() (setsView, bool) {
	i := m.setsTab()
	if i < 0 {
		return setsView{}, false
	}
	return m.tabs[i].(setsView), true
}

// withSets stores the Jobs view back in its slot.
func (m Model) withSets(v setsView) Model {
	i := m.setsTab()
	if i < 0 {
		return m
	}
	m.tabs = append([]view(nil), m.tabs...)
	m.tabs[i] = v
	return m
}

// setsFocused reports whether the Jobs view is the one on screen.
func (m Model) setsFocused() bool {
	return !m.opened() && m.setsTab() == m.tab
}

// updateSets takes the Jobs view's own messages: its page reads, its
// summary scan and its plans. The root's Update routes them here.
func (m Model) updateSets(msg tea.Msg) (Model, tea.Cmd) {
	v, has := m.setsView()
	if !has {
		return m, nil
	}
	switch msg := msg.(type) {
	case setsPageMsg:
		return m.onSetsPage(v, msg)
	case setsScanStepMsg:
		return m.onSetsScanStep(v, msg)
	case setsScanWakeMsg:
		return m.onSetsScanWake(v, msg)
	case setsPlanMsg:
		return m.onSetsPlan(msg)
	}
	return m, nil
}

// afterSetsAction follows a requeue or delete of the Jobs view (its
// actions' after): the view reads its page (and its summary) again.
func (m Model) afterSetsAction() (Model, tea.Cmd) {
	// A job's detail closed itself (actionDone): the job it showed has
	// moved.
	v, ok := m.setsView()
	if !ok {
		return m, nil
	}
	v.marked, v.markAll = nil, false
	v.summary.done = false // what it counted has changed
	m, load := m.setsLoad(v, v.offset, true)
	var scan tea.Cmd
	if v.showSummary {
		m, scan = m.startSetsSummary()
	}
	return m, tea.Batch(load, scan)
}

// setsTakes reports whether the Jobs view takes the key msg: it or a job
// of it is on top, and no dialog is open. Other keys never pass through
// it.
func (m Model) setsTakes(msg tea.KeyMsg) bool {
	if m.dialog != nil || msg.Type == tea.KeyCtrlC || m.setsTab() < 0 {
		return false
	}
	return m.setsFocused() || (!m.filtering && m.setsTab() == m.tab && len(m.stack) == 1 && isSetJob(m.top()))
}

// setsShown makes the Jobs view's first read when a key brought it on
// screen.
func (m Model) setsShown() (Model, tea.Cmd) {
	if v, ok := m.setsView(); ok && m.setsFocused() && m.dialog == nil && !v.loaded && !v.loading {
		return m.setsLoad(v, 0, false)
	}
	return m, nil
}

// onSetsKey is one key the Jobs view takes (setsTakes): its own keys,
// else the root's onKey.
func (m Model) onSetsKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	v, _ := m.setsView()
	if !m.setsFocused() {
		// A job's detail: R and D act on it, the other keys are the
		// detail's and the root's.
		k := m.keyMap()
		switch {
		case key.Matches(msg, k.SetsRequeue):
			return m.openSetsAction(actionJobsRequeue, v)
		case key.Matches(msg, k.SetsDelete):
			return m.openSetsAction(actionJobsDelete, v)
		case isJobEditKey(msg, m.keys):
			// Matched on the bindings as configured, enabled or not: in
			// read-only mode they say why they do nothing.
			return m.onJobEditKey(msg)
		}
		return m.onKey(msg)
	}
	if m.filtering {
		switch msg.Type {
		case tea.KeyEnter, tea.KeyEsc:
			m, cmd := m.onFilterKey(msg)
			v, _ := m.setsView()
			m, load := m.applySetsQuery(v, v.typed)
			return m, tea.Batch(cmd, load)
		}
		return m.onKey(msg)
	}
	k := m.keyMap()
	switch {
	case key.Matches(msg, k.SetsRequeue):
		return m.openSetsAction(actionJobsRequeue, v)
	case key.Matches(msg, k.SetsDelete):
		return m.openSetsAction(actionJobsDelete, v)
	case key.Matches(msg, k.SetsSummary):
		return m.toggleSetsSummary(v)
	case key.Matches(msg, k.Refresh):
		m, cmd := m.refresh()
		m, load := m.setsLoad(v, v.offset, true)
		var scan tea.Cmd
		if v.showSummary {
			m, scan = m.startSetsSummary()
		}
		return m, tea.Batch(cmd, load, scan)
	}
	if v.showSummary {
		if key.Matches(msg, m.keys.Back) {
			v.showSummary = false
			return m.withSets(v), nil
		}
		if key.Matches(msg, k.Enter) {
			// The jobs of the picked type that the summary counted.
			name, _ := v.summaryPick()
			v.showSummary = false
			return m.applySetsQuery(v, strings.TrimSpace(v.summary.where+" "+jobQuery(name)))
		}
		if key.Matches(msg, k.NextSet) {
			v = v.switchSet()
			v.showSummary = true
			m, load := m.setsLoad(v, 0, false)
			m, scan := m.startSetsSummary()
			return m, tea.Batch(load, scan)
		}
		return m.onKey(msg)
	}
	switch {
	case key.Matches(msg, k.NextSet):
		return m.setsLoad(v.switchSet(), 0, false)
	case key.Matches(msg, k.SetsOrder):
		v.reverse = !v.reverse
		v.marked, v.markAll = nil, false
		return m.setsLoad(v, 0, false)
	case key.Matches(msg, k.Mark):
		return m.withSets(v.toggleMark()), nil
	case key.Matches(msg, k.MarkAll):
		return m.toggleMarkAll(v)
	case key.Matches(msg, k.PageDown):
		if int64(v.offset+setsPageSize) >= v.total {
			return m.setStatus("last page", false)
		}
		return m.setsLoad(v, v.offset+setsPageSize, false)
	case key.Matches(msg, k.PageUp):
		if v.offset == 0 {
			return m.setStatus("first page", false)
		}
		return m.setsLoad(v, v.offset-setsPageSize, false)
	case key.Matches(msg, k.Enter):
		if sj, ok := v.current(); ok {
			jv := newSetJobView(v, sj)
			jv.edits = v.writes && m.wr.Edit != nil
			return m.push(jv)
		}
		return m, nil
	case key.Matches(msg, m.keys.Back) && v.markAll:
		v.markAll = false
		return m.withSets(v).setStatus("marks cleared", false)
	case key.Matches(msg, m.keys.Back) && len(v.marked) > 0:
		n := len(v.marked)
		v.marked = nil
		return m.withSets(v).setStatus(fmt.Sprintf("%s cleared", plural(n, "mark", "marks")), false)
	case key.Matches(msg, m.keys.Back) && v.jobFilter != "":
		return m.applySetsQuery(v, "")
	}
	return m.onKey(msg)
}

// switchSet shows the next set from its first page.
func (v setsView) switchSet() setsView {
	for i, s := range jobSets {
		if s == v.set {
			v.set = jobSets[(i+1)%len(jobSets)]
			break
		}
	}
	v.marked, v.markAll = nil, false
	return v
}

// setsLoad reads the page at offset. keep puts the cursor back on the
// member under it (an action or a refresh); otherwise it goes to the top.
func (m Model) setsLoad(v setsView, offset int, keep bool) (Model, tea.Cmd) {
	if m.rd.Sets == nil {
		return m.withSets(v), nil
	}
	v.keep, v.keepIndex = "", 0
	if keep {
		if sj, ok := v.current(); ok {
			v.keep = memberKey(sj)
		}
		v.keepIndex = v.list.cursor
	}
	if !keep {
		v.poll.fresh = 0 // another page, set, order or query
	}
	v.poll.last = m.polls // this read follows the last poll
	v.loadSeq++
	v.loading = true
	// The page asked for: a second pgdn before this read returns goes on
	// from it.
	v.offset = max(offset, 0)
	f := redisq.SetFilter{Query: v.query}
	timeout := m.opts.FetchTimeout
	if !f.Empty() {
		// A filtered page scans the whole set, paced.
		timeout = m.opts.ActionTimeout
	}
	return m.withSets(v), setsPageCmd(m.rd.Sets, v.set, f, v.pageOptions(offset), v.loadSeq, timeout)
}

func (m Model) onSetsPage(v setsView, msg setsPageMsg) (Model, tea.Cmd) {
	if msg.reread {
		return m.onSetsReread(v, msg)
	}
	if msg.seq != v.loadSeq {
		return m, nil
	}
	v.loading, v.loaded = false, true
	v.err = msg.err
	if msg.err != nil {
		return m.withSets(v), nil
	}
	v.poll.readAt = m.opts.Now()
	if msg.counts != nil {
		v.counts = msg.counts
	}
	p := msg.page
	if len(p.Jobs) == 0 && p.Offset > 0 && p.Total > 0 {
		// The page emptied (its jobs were requeued or deleted): show the
		// last one that has jobs.
		last := int((p.Total - 1) / setsPageSize * setsPageSize)
		return m.setsLoad(v, min(last, p.Offset-setsPageSize), false)
	}
	return m.withSets(v.withPage(p)), nil
}

// toggleSetsSummary opens the summary of what the query in force matches
// in the current set, read fresh: a scan starts unless one of the same set
// and query is running; from the summary it goes back to the list.
func (m Model) toggleSetsSummary(v setsView) (Model, tea.Cmd) {
	if v.showSummary {
		v.showSummary = false
		return m.withSets(v), nil
	}
	v.showSummary = true
	m = m.withSets(v)
	if v.summary.set == v.set && v.summary.where == v.jobFilter && v.summary.running {
		return m, nil
	}
	return m.startSetsSummary()
}

// startSetsSummary starts a summary scan of the view's set, dropping a
// running one. While a step of the old scan runs, the new scan starts when
// that step returns: one step at a time, as the orphan scan.
func (m Model) startSetsSummary() (Model, tea.Cmd) {
	v, _ := m.setsView()
	if m.rd.SetScan == nil {
		v.summary = setsSummary{set: v.set, query: v.query, where: v.jobFilter, gen: v.summary.gen + 1, err: errNoSetScanner}
		return m.withSets(v), nil
	}
	stepping := v.summary.stepping
	v.summary = setsSummary{gen: v.summary.gen + 1, set: v.set, query: v.query, where: v.jobFilter, running: true, stepping: true, sum: model.NewSetSummary(v.set)}
	m = m.withSets(v)
	if stepping {
		return m, nil // onSetsScanStep starts it
	}
	return m, setsScanStepCmd(m.rd.SetScan, nil, v.set, v.query, v.summary.gen, m.opts.FetchTimeout, m.opts.Now)
}

func (m Model) onSetsScanStep(v setsView, msg setsScanStepMsg) (Model, tea.Cmd) {
	v.summary.stepping = false
	if msg.gen != v.summary.gen {
		closeOld := closeSetScanCmd(msg.scan)
		if !v.summary.running {
			return m.withSets(v), closeOld
		}
		v.summary.stepping = true
		return m.withSets(v), tea.Batch(closeOld, setsScanStepCmd(m.rd.SetScan, nil, v.summary.set, v.summary.query, v.summary.gen, m.opts.FetchTimeout, m.opts.Now))
	}
	if msg.err != nil {
		v.summary.running, v.summary.err = false, msg.err
		return m.withSets(v), nil
	}
	for _, sj := range msg.jobs {
		v.summary.sum.Add(sj)
	}
	v.summary.prog = msg.progress
	if msg.progress.Done {
		v.summary.running, v.summary.done = false, true
		return m.withSets(v), nil
	}
	gen, s := msg.gen, msg.scan
	return m.withSets(v), m.after(m.opts.ScanPause(msg.took), func(time.Time) tea.Msg { return setsScanWakeMsg{gen: gen, scan: s} })
}

// onSetsScanWake starts the next step after the pause.
func (m Model) onSetsScanWake(v setsView, msg setsScanWakeMsg) (Model, tea.Cmd) {
	if msg.gen != v.summary.gen || !v.summary.running || v.summary.stepping {
		return m, closeSetScanCmd(msg.scan)
	}
	v.summary.stepping = true
	return m.withSets(v), setsScanStepCmd(m.rd.SetScan, msg.scan, v.summary.set, v.summary.query, msg.gen, m.opts.FetchTimeout, m.opts.Now)
}
