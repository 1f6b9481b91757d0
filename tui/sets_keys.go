package tui

// This file owns the Jobs view's own keys on its list and its summary:
// the set switcher, the order, the marks, the pages, the summary, enter
// on a job type, and esc that drops the marks or the query. The
// view takes them before the root (keyTaker); R, D, r, enter on a job and
// the query being typed are still the root's (sets_update.go).

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
)

// takesKey reports whether msg is one of the view's own keys here.
func (v setsView) takesKey(msg tea.KeyMsg) bool {
	_, _, ok := v.onKey(msg)
	return ok
}

// onKey is one of the view's own keys; ok is false for every other key,
// which the root takes, or the list's navigation.
func (v setsView) onKey(msg tea.KeyMsg) (setsView, tea.Cmd, bool) {
	k := v.keys(v.km)
	if key.Matches(msg, k.get(actions.Summary)) {
		v, cmd := v.toggleSummary()
		return v, cmd, true
	}
	if v.showSummary {
		return v.summaryKey(msg, k)
	}
	switch {
	case key.Matches(msg, k.get(actions.NextSet)):
		v, cmd := v.switchSet().load(0, false)
		return v, cmd, true
	case key.Matches(msg, k.get(actions.SetsOrder)):
		v.reverse = !v.reverse
		v.marked, v.markAll = nil, false
		v, cmd := v.load(0, false)
		return v, cmd, true
	case key.Matches(msg, k.get(actions.Mark)):
		return v.toggleMark(), nil, true
	case key.Matches(msg, k.get(actions.MarkAll)):
		v, cmd := v.toggleMarkAll()
		return v, cmd, true
	case key.Matches(msg, k.get(actions.PageDown)):
		if int64(v.offset+setsPageSize) >= v.total {
			return v, statusCmd("last page", false), true
		}
		v, cmd := v.load(v.offset+setsPageSize, false)
		return v, cmd, true
	case key.Matches(msg, k.get(actions.PageUp)):
		if v.offset == 0 {
			return v, statusCmd("first page", false), true
		}
		v, cmd := v.load(v.offset-setsPageSize, false)
		return v, cmd, true
	case key.Matches(msg, v.km.get(actions.Back)) && v.markAll:
		v.markAll = false
		return v, statusCmd("marks cleared", false), true
	case key.Matches(msg, v.km.get(actions.Back)) && len(v.marked) > 0:
		n := len(v.marked)
		v.marked = nil
		return v, statusCmd(fmt.Sprintf("%s cleared", plural(n, "mark", "marks")), false), true
	case key.Matches(msg, v.km.get(actions.Back)) && v.jobFilter != "":
		v, cmd := v.applyQuery("")
		return v, cmd, true
	}
	return v, nil, false
}

// summaryKey is one of the summary's keys: esc back to the list, enter
// on a job type lists its jobs, s the next set's summary.
func (v setsView) summaryKey(msg tea.KeyMsg, k keyMap) (setsView, tea.Cmd, bool) {
	switch {
	case key.Matches(msg, v.km.get(actions.Back)):
		v.showSummary = false
		return v, nil, true
	case key.Matches(msg, k.get(actions.Enter)):
		// The jobs of the picked type that the summary counted.
		name, _ := v.summaryPick()
		v.showSummary = false
		v, cmd := v.applyQuery(strings.TrimSpace(v.summary.where + " " + jobQuery(name)))
		return v, cmd, true
	case key.Matches(msg, k.get(actions.NextSet)):
		v = v.switchSet()
		v.showSummary = true
		v, load := v.load(0, false)
		v, scan := v.startSummary()
		return v, tea.Batch(load, scan), true
	}
	return v, nil, false
}

// jobOpener is a list whose enter on a row pushes that row's detail at
// once (the root pushes it, so that keys typed right after enter reach
// the detail): mine is false when enter is not that here (the Jobs
// view's summary), v nil when no row is under the cursor.
type jobOpener interface {
	openJob() (v view, mine bool)
}

// openJob is enter on a job: its whole detail (jobOpener).
func (v setsView) openJob() (view, bool) {
	if v.showSummary {
		return nil, false
	}
	sj, ok := v.current()
	if !ok {
		return nil, true
	}
	jv := newSetJobView(v, sj)
	jv.edits = v.edits
	return jv, true
}

// pickedJobID is the id of the job under the cursor, for f's :find.
func (v setsView) pickedJobID() (string, bool) {
	if v.showSummary {
		return "", false
	}
	if sj, ok := v.current(); ok && sj.Job != nil && sj.Job.ID != "" {
		return sj.Job.ID, true
	}
	return "", false
}

// bulkRequeueWhy says why :requeue --rate has no bulk requeue to pace
// here, "" when it has one.
func (v setsView) bulkRequeueWhy() string {
	if !v.markAll && !v.showSummary {
		return ":requeue --rate paces a bulk requeue: mark every matching job first (A), or pick a job type in the summary (S)"
	}
	if !v.keys(v.km).get(actions.SetsRequeue).Enabled() {
		return "requeue is not available here: read-only, or no job to requeue"
	}
	return ""
}

// toggleMarkAll marks every member the query matches (A), or takes the
// marks away. The count is the last read's: the plan of R or D counts
// again, from Redis.
func (v setsView) toggleMarkAll() (setsView, tea.Cmd) {
	if v.markAll {
		v.markAll = false
		return v, statusCmd("marks cleared", false)
	}
	v.markAll, v.marked = true, nil
	return v, nil
}
