package tui

// This file owns how a pool's detail follows the polls: the pool comes
// with each snapshot, and its in-progress jobs are peeked again after
// each poll (one LRANGE per job type, as when it opens), the viewport
// staying where it was.

import (
	tea "github.com/charmbracelet/bubbletea"
)

// followPoll peeks at the jobs again after a poll it has not followed.
func (d detailView) followPoll(p polled) (view, tea.Cmd, bool) {
	if d.loading {
		return d, nil, false
	}
	f, start := d.poll.follow(p)
	changed := f != d.poll
	d.poll = f
	if !start {
		return d, nil, changed
	}
	if _, ok := d.current(); !ok || d.peeker == nil {
		// Nothing to read (the pool is gone): what is shown is as of
		// this poll.
		d.poll.running, d.poll.readAt = false, p.at
		return d, nil, true
	}
	d, cmd := d.startPeek()
	return d, cmd, true
}

// withPeek shows the jobs a peek read. A re-read that failed keeps the
// jobs shown, with the error.
func (d detailView) withPeek(msg peekMsg) detailView {
	d.loading, d.peekErr = false, msg.err
	rereading := d.poll.running
	d.poll.running = false
	if msg.err != nil && rereading {
		return d.refresh()
	}
	d.jobs = msg.jobs
	d.poll.readAt = d.poll.last.at
	return d.refresh()
}
