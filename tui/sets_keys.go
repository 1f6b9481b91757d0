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
	if key.Matches(msg, k.SetsSummary) {
		v, cmd := v.toggleSummary()
		return v, cmd, true
	}
	if v.showSummary {
		return v.summaryKey(msg, k)
	}
	switch {
	case key.Matches(msg, k.NextSet):
		v, cmd := v.switchSet().load(0, false)
		return v, cmd, true
	case key.Matches(msg, k.SetsOrder):
		v.reverse = !v.reverse
		v.marked, v.markAll = nil, false
		v, cmd := v.load(0, false)
		return v, cmd, true
	case key.Matches(msg, k.Mark):
		return v.toggleMark(), nil, true
	case key.Matches(msg, k.MarkAll):
		v, cmd := v.toggleMarkAll()
		return v, cmd, true
	case key.Matches(msg, k.PageDown):
		if int64(v.offset+setsPageSize) >= v.total {
			return v, statusCmd("last page", false), true
		}
		v, cmd := v.load(v.offset+setsPageSize, false)
		return v, cmd, true
	case key.Matches(msg, k.PageUp):
		if v.offset == 0 {
			return v, statusCmd("first page", false), true
		}
		v, cmd := v.load(v.offset-setsPageSize, false)
		return v, cmd, true
	case key.Matches(msg, v.km.Back) && v.markAll:
		v.markAll = false
		return v, statusCmd("marks cleared", false), true
	case key.Matches(msg, v.km.Back) && len(v.marked) > 0:
		n := len(v.marked)
		v.marked = nil
		return v, statusCmd(fmt.Sprintf("%s cleared", plural(n, "mark", "marks")), false), true
	case key.Matches(msg, v.km.Back) && v.jobFilter != "":
		v, cmd := v.applyQuery("")
		return v, cmd, true
	}
	return v, nil, false
}

// summaryKey is one of the summary's keys: esc back to the list, enter
// on a job type lists its jobs, s the next set's summary.
func (v setsView) summaryKey(msg tea.KeyMsg, k keyMap) (setsView, tea.Cmd, bool) {
	switch {
	case key.Matches(msg, v.km.Back):
		v.showSummary = false
		return v, nil, true
	case key.Matches(msg, k.Enter):
		// The jobs of the picked type that the summary counted.
		name, _ := v.summaryPick()
		v.showSummary = false
		v, cmd := v.applyQuery(strings.TrimSpace(v.summary.where + " " + jobQuery(name)))
		return v, cmd, true
	case key.Matches(msg, k.NextSet):
		v = v.switchSet()
		v.showSummary = true
		v, load := v.load(0, false)
		v, scan := v.startSummary()
		return v, tea.Batch(load, scan), true
	}
	return v, nil, false
}

// openJob is enter on a job: its whole detail, to push on the view.
// The root pushes it at once (onSetsKey), so that keys typed right after
// enter reach the detail.
func (v setsView) openJob() (setJobView, bool) {
	sj, ok := v.current()
	if !ok {
		return setJobView{}, false
	}
	jv := newSetJobView(v, sj)
	jv.edits = v.edits
	return jv, true
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
