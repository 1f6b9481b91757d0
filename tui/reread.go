package tui

// This file owns the re-reads that follow the polls: the list on screen
// reads again what it shows once per poll, so that a page, a queue or a
// pool's jobs move as the header does. Only the view on screen re-reads,
// never while a dialog covers it, and a view starts its next re-read only
// once the last one returned: a slow Redis never gets them stacked.

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// pollFollower is a view that reads what it shows itself (a queue, a
// pool's jobs, the Jobs view's page). followPoll is offered the last poll (its number and when
// it arrived) after every message: a view that has not read since that
// poll, and has no read running, starts one and returns its command.
// changed is false when the view is left as it was.
type pollFollower interface {
	followPoll(p polled) (v view, cmd tea.Cmd, changed bool)
}

// polled names a poll: its number (Model.polls) and when it arrived (the
// screen's clock).
type polled struct {
	n  uint64
	at time.Time
}

// rereadShown starts the re-read of the view on screen when a poll
// arrived since its last read (onSnapshot counts them). It runs after
// every message: a poll that arrives while a re-read runs is followed as
// soon as that one returns.
func (m Model) rereadShown() (Model, tea.Cmd) {
	if m.hidden || m.dialog != nil || m.polls == 0 || m.lay.tooSmall {
		return m, nil
	}
	f, ok := m.top().(pollFollower)
	if !ok {
		return m, nil
	}
	v, cmd, changed := f.followPoll(polled{n: m.polls, at: m.fetchedAt})
	if !changed {
		return m, nil
	}
	return m.setTop(v), cmd
}

// followState is the state of a pushed view's re-reads.
type followState struct {
	// last is the last poll the view followed; readAt is when the poll
	// that what it shows is as fresh as arrived (zero before one).
	last   polled
	readAt time.Time
	// running is set while a re-read runs.
	running bool
}

// follow is the start of a re-read after poll p, or false when p was
// followed already. A view that has followed none yet, opened after the
// last poll with a read of its own, takes p as followed.
func (f followState) follow(p polled) (followState, bool) {
	switch {
	case f.last.n == p.n:
		return f, false
	case f.last.n == 0:
		f.last, f.readAt = p, p.at
		return f, false
	}
	f.last, f.running = p, true
	return f, true
}

// staleAfter is how much older than the header's a view's data may be
// before the view says so: a re-read starts after the poll it follows and
// returns a moment later, never a second.
const staleAfter = time.Second

// olderNote says how old a view's data is when it is older than the
// header's (read at readAt, the header's at fetchedAt, both the screen's
// clock); "" when it is not, or was never read.
func olderNote(what string, readAt, fetchedAt, now time.Time) string {
	if readAt.IsZero() || fetchedAt.Sub(readAt) < staleAfter {
		return ""
	}
	return what + " as of " + model.FormatAge(max(now.Sub(readAt), 0)) + " ago"
}
