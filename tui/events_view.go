package tui

// This file is the events view (E): what changed between the polls seen
// since it opened, newest first. Pools that appeared, died, came back or
// left (reaped, when they were dead), job types that started or stopped
// failing, locks that drifted or came right, queues that jumped. It reads
// nothing of its own: it compares each snapshot the root gives every view
// with the one before.

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// eventsKept is how many events the view keeps, the oldest dropped first.
const eventsKept = 500

// queueJump is the least change of a queue's length that is an event:
// at least this many jobs, and at least half of what it held.
const queueJump = 100

// event is one change seen between two polls, at the later poll's Redis
// time; text is clean.
type event struct {
	at   time.Time
	text string
}

// eventsView lists the events, newest first.
type eventsView struct {
	km     keyMap
	last   *model.Snapshot
	events []event
	top    int

	width, height int
}

// newEventsView starts from snap: what changes after it is listed.
func newEventsView(snap *model.Snapshot, k keyMap) eventsView {
	return eventsView{km: k, last: snap}
}

// eventsAction is E's entry in the actions table: it opens the view on
// the last snapshot, once there is one.
func eventsAction() actionBinding {
	return actionBinding{
		id:   actions.Events,
		name: "the events",
		look: func(m Model) (actionTarget, string) {
			if m.snap == nil {
				return applies("no data yet")
			}
			return applies("")
		},
		run: func(m Model, _ actionTarget) (Model, tea.Cmd) { return m.push(newEventsView(m.snap, m.keys)) },
	}
}

func (eventsView) title() string { return "events" }

func (v eventsView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotShown:
		return v.observe(msg.snap), nil
	case tea.KeyMsg:
		if top, ok := scrolled(v.top, msg, v.km, len(v.events), v.height-1); ok {
			v.top = top
		}
	}
	return v, nil
}

// observe adds what changed from the last snapshot to s.
func (v eventsView) observe(s *model.Snapshot) eventsView {
	if s == nil || s == v.last {
		return v
	}
	if v.last != nil {
		var added []event
		for _, text := range snapshotEvents(v.last, s) {
			added = append(added, event{at: s.RedisTime, text: text})
		}
		if len(added) > 0 {
			v.events = append(added, v.events...)
			v.events = v.events[:min(len(v.events), eventsKept)]
			if v.top > 0 {
				v.top += len(added) // the lines read stay in place
			}
		}
	}
	v.last = s
	return v
}

// snapshotEvents is what changed from a to b, in words: pools first, then
// job types by name.
func snapshotEvents(a, b *model.Snapshot) []string {
	var out []string
	was := make(map[string]model.Status, len(a.Pools))
	for _, p := range a.Pools {
		was[p.ID] = p.Status
	}
	now := make(map[string]bool, len(b.Pools))
	for _, p := range b.Pools {
		now[p.ID] = true
		id := textsafe.Clean(model.ShortID(p.ID))
		before, seen := was[p.ID]
		switch {
		case !seen:
			out = append(out, fmt.Sprintf("pool %s appeared (%s)", id, p.Status))
		case before != model.StatusDead && p.Status == model.StatusDead:
			out = append(out, fmt.Sprintf("pool %s died", id))
		case before == model.StatusDead && p.Status != model.StatusDead:
			out = append(out, fmt.Sprintf("pool %s is back (%s)", id, p.Status))
		}
	}
	for _, p := range a.Pools {
		if now[p.ID] {
			continue
		}
		id := textsafe.Clean(model.ShortID(p.ID))
		if p.Status == model.StatusDead {
			out = append(out, fmt.Sprintf("pool %s was reaped", id))
		} else {
			out = append(out, fmt.Sprintf("pool %s left", id))
		}
	}
	out = append(out, jobTypeEvents(a, b)...)
	return out
}

// jobTypeEvents is what changed of the job types from a to b: failing,
// drift and queue jumps.
func jobTypeEvents(a, b *model.Snapshot) []string {
	var out []string
	before := make(map[string]model.JobType, len(a.JobTypes))
	for _, jt := range a.JobTypes {
		before[jt.Name] = jt
	}
	failedA, failedB := failing(a), failing(b)
	for _, jt := range b.JobTypes {
		name := textsafe.Clean(jt.Name)
		old, seen := before[jt.Name]
		if a.Jobs != nil && b.Jobs != nil {
			switch {
			case failedB[jt.Name] && !failedA[jt.Name]:
				out = append(out, name+" started failing")
			case failedA[jt.Name] && !failedB[jt.Name]:
				out = append(out, name+" stopped failing")
			}
		}
		if !seen {
			continue
		}
		switch {
		case jt.Drift && !old.Drift:
			out = append(out, fmt.Sprintf("locks of %s drifted (lock %d, %d in progress)", name, jt.Lock, jt.InProgress))
		case old.Drift && !jt.Drift:
			out = append(out, fmt.Sprintf("locks of %s are consistent again", name))
		}
		if d := jt.Queued - old.Queued; abs64(d) >= queueJump && abs64(d)*2 >= old.Queued {
			out = append(out, fmt.Sprintf("queue %s jumped %d -> %d", name, old.Queued, jt.Queued))
		}
	}
	return out
}

// failing is the job types s judges failing.
func failing(s *model.Snapshot) map[string]bool {
	out := map[string]bool{}
	if s.Jobs == nil {
		return out
	}
	for _, p := range s.Jobs.Problems {
		if p.Kind == model.FindingFailing {
			out[p.Job] = true
		}
	}
	return out
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func (v eventsView) setSize(w, h int) view {
	v.width, v.height = w, h
	return v
}

// keys: nothing to open or filter here; esc goes back.
func (eventsView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, false)
	k.enable(actions.Filter, false)
	k.enable(actions.Back, true)
	return k
}

func (v eventsView) render(c renderContext) string {
	head := c.st.bold.Render("what changed between polls") + c.st.faint.Render(" · newest first, since this view opened")
	lines := []string{fitLine(head, v.width)}
	if len(v.events) == 0 {
		lines = append(lines, c.st.faint.Render("nothing yet: each poll is compared with the one before"))
	}
	top := min(max(v.top, 0), max(len(v.events)-1, 0))
	for _, e := range v.events[top:min(len(v.events), top+max(v.height-1, 0))] {
		lines = append(lines, fitLine(e.at.UTC().Format("15:04:05")+"  "+e.text, v.width))
	}
	return fitBlock(strings.Join(lines, "\n"), v.width, v.height)
}
