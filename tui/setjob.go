package tui

// This file owns a job's detail in the Jobs view: enter on a member
// pushes it over the whole body, R and D act on that member as on the
// list, esc pops it. It shows what the page read; the Jobs view under it
// reads the set.

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/model"
)

// setJobView is the full detail of one member of a set, scrolled by top.
type setJobView struct {
	km       keyMap
	job      model.SetJob
	set      model.SetName
	redisNow time.Time
	writes   bool
	// edits: e and d apply (the actor edits jobs, writes are allowed).
	edits         bool
	top           int
	width, height int
	// detail keeps the member's lines between frames and key presses.
	detail *detailCache
}

// newSetJobView shows the member under the Jobs view's cursor.
func newSetJobView(v setsView, sj model.SetJob) setJobView {
	return setJobView{km: v.km, job: sj, set: v.set, redisNow: v.redisNow, writes: v.writes,
		detail: &detailCache{}}
}

// setMember is a view about one member of a set (a job's detail): R and
// D act on it as on the list under it, e edits its args, d copies it.
type setMember interface {
	member() (model.SetName, model.SetJob)
}

// member is the set and the member shown.
func (v setJobView) member() (model.SetName, model.SetJob) { return v.set, v.job }

// isSetJob reports whether v is a job's detail of the Jobs view.
func isSetJob(v view) bool {
	_, ok := v.(setMember)
	return ok
}

func (setJobView) title() string { return "job" }

func (v setJobView) lines() []string { return setJobDetail(v.job, v.redisNow, v.width, v.detail) }

func (v setJobView) update(msg tea.Msg) (view, tea.Cmd) {
	if d, ok := msg.(actionDone); ok {
		switch d.kind {
		case actionJobsRequeue, actionJobsDelete, actionJobsEdit, actionJobsDuplicate:
			return nil, nil // the job it showed has moved, changed or has a copy
		}
	}
	if km, ok := msg.(tea.KeyMsg); ok {
		if top, ok := scrolled(v.top, km, v.km, len(v.lines()), v.height-1); ok {
			v.top = top
		}
	}
	return v, nil
}

func (v setJobView) setSize(w, h int) view {
	v.width, v.height = w, h
	return v
}

// copyItem is the member shown, its bytes whole.
func (v setJobView) copyItem() (copyItem, bool) {
	it := setJobCopy(v.job)
	it.what, it.text = "the job's bytes", v.job.Raw
	return it, true
}

// keys are the scroll keys, R, D, e and d on this member, and esc.
func (v setJobView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, false)
	k.enable(actions.Filter, false)
	k.enable(actions.Back, true)
	k.enable(actions.SetsRequeue, v.writes)
	k.enable(actions.SetsDelete, v.writes)
	k.enable(actions.SetsEdit, v.edits)
	k.enable(actions.SetsDuplicate, v.edits)
	// e edits the job here; explain acts on job types and pools.
	k.enable(actions.Explain, false)
	return k
}

func (v setJobView) render(c renderContext) string {
	title := c.st.bold.Render(string(v.set)) + c.st.faint.Render(" · one job · esc back")
	lines := v.lines()
	lines = lines[min(v.top, len(lines)):]
	body := strings.Join(lines[:min(len(lines), max(v.height-1, 0))], "\n")
	return fitBlock(fitLine(title, v.width)+"\n"+fitBlock(body, v.width, max(v.height-1, 0)), v.width, v.height)
}
