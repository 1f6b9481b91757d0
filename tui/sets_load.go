package tui

// This file owns the Jobs view's reads: its pages (with the three set
// sizes) and its summary scan, paced like the orphan scan, one step at a
// time. The view starts them and takes their results in its update; the
// re-reads that follow the polls are in sets_reread.go.

import (
	"context"
	"time"

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

// load reads the page at offset. keep puts the cursor back on the member
// under it (an action or a refresh); otherwise it goes to the top.
func (v setsView) load(offset int, keep bool) (setsView, tea.Cmd) {
	if v.rd.sets == nil {
		return v, nil
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
	v.poll.last = v.polls // this read follows the last poll
	v.loadSeq++
	v.loading = true
	// The page asked for: a second pgdn before this read returns goes on
	// from it.
	v.offset = max(offset, 0)
	f := redisq.SetFilter{Query: v.query}
	timeout := v.pace.fetch
	if !f.Empty() {
		// A filtered page scans the whole set, paced.
		timeout = v.pace.action
	}
	return v, setsPageCmd(v.rd.sets, v.set, f, v.pageOptions(offset), v.loadSeq, timeout)
}

// onPage takes a page read.
func (v setsView) onPage(msg setsPageMsg) (view, tea.Cmd) {
	if msg.reread {
		return v.onReread(msg)
	}
	if msg.seq != v.loadSeq {
		return v, nil
	}
	v.loading, v.loaded = false, true
	v.err = msg.err
	if msg.err != nil {
		return v, nil
	}
	v.poll.readAt = v.pace.now()
	if msg.counts != nil {
		v.counts = msg.counts
	}
	p := msg.page
	if len(p.Jobs) == 0 && p.Offset > 0 && p.Total > 0 {
		// The page emptied (its jobs were requeued or deleted): show the
		// last one that has jobs.
		last := int((p.Total - 1) / setsPageSize * setsPageSize)
		return v.load(min(last, p.Offset-setsPageSize), false)
	}
	return v.withPage(p), nil
}

// toggleSummary opens the summary of what the query in force matches in
// the current set, read fresh: a scan starts unless one of the same set
// and query is running; from the summary it goes back to the list.
func (v setsView) toggleSummary() (setsView, tea.Cmd) {
	if v.showSummary {
		v.showSummary = false
		return v, nil
	}
	v.showSummary = true
	if v.summary.set == v.set && v.summary.where == v.jobFilter && v.summary.running {
		return v, nil
	}
	return v.startSummary()
}

// startSummary starts a summary scan of the view's set, dropping a
// running one. While a step of the old scan runs, the new scan starts when
// that step returns: one step at a time, as the orphan scan.
func (v setsView) startSummary() (setsView, tea.Cmd) {
	if v.rd.scan == nil {
		v.summary = setsSummary{set: v.set, query: v.query, where: v.jobFilter, gen: v.summary.gen + 1, err: errNoSetScanner}
		return v, nil
	}
	stepping := v.summary.stepping
	v.summary = setsSummary{gen: v.summary.gen + 1, set: v.set, query: v.query, where: v.jobFilter, running: true, stepping: true, sum: model.NewSetSummary(v.set)}
	if stepping {
		return v, nil // onScanStep starts it
	}
	return v, setsScanStepCmd(v.rd.scan, nil, v.set, v.query, v.summary.gen, v.pace.fetch, v.pace.now)
}

// onScanStep takes a step of the summary scan and, after the pause, asks
// for the next.
func (v setsView) onScanStep(msg setsScanStepMsg) (view, tea.Cmd) {
	v.summary.stepping = false
	if msg.gen != v.summary.gen {
		closeOld := closeSetScanCmd(msg.scan)
		if !v.summary.running {
			return v, closeOld
		}
		v.summary.stepping = true
		return v, tea.Batch(closeOld, setsScanStepCmd(v.rd.scan, nil, v.summary.set, v.summary.query, v.summary.gen, v.pace.fetch, v.pace.now))
	}
	if msg.err != nil {
		v.summary.running, v.summary.err = false, msg.err
		return v, nil
	}
	for _, sj := range msg.jobs {
		v.summary.sum.Add(sj)
	}
	v.summary.prog = msg.progress
	if msg.progress.Done {
		v.summary.running, v.summary.done = false, true
		return v, nil
	}
	gen, s := msg.gen, msg.scan
	return v, v.pace.after(v.pace.pause(msg.took), func(time.Time) tea.Msg { return setsScanWakeMsg{gen: gen, scan: s} })
}

// onScanWake starts the next step after the pause.
func (v setsView) onScanWake(msg setsScanWakeMsg) (view, tea.Cmd) {
	if msg.gen != v.summary.gen || !v.summary.running || v.summary.stepping {
		return v, closeSetScanCmd(msg.scan)
	}
	v.summary.stepping = true
	return v, setsScanStepCmd(v.rd.scan, msg.scan, v.summary.set, v.summary.query, msg.gen, v.pace.fetch, v.pace.now)
}

// afterAction follows a requeue, delete, edit or copy of one of the
// Jobs view's jobs (actionDone): the marks go, and the view reads its
// page (and its summary) again, the cursor kept on its member.
func (v setsView) afterAction(kind actionKind) (view, tea.Cmd) {
	switch kind {
	case actionJobsRequeue, actionJobsDelete, actionJobsEdit, actionJobsDuplicate:
	default:
		return v, nil
	}
	v.marked, v.markAll = nil, false
	v.summary.done = false // what it counted has changed
	return v.reload()
}

// reload reads the page shown again (r, loadMsg), the cursor kept on its
// member, and the summary when it is on screen.
func (v setsView) reload() (view, tea.Cmd) {
	v, load := v.load(v.offset, true)
	var scan tea.Cmd
	if v.showSummary {
		v, scan = v.startSummary()
	}
	return v, tea.Batch(load, scan)
}
