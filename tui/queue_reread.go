package tui

// This file owns how the queue view follows the polls: the page shown is
// read again after each poll (one LRANGE and LLEN, as a page read), and
// the job at the top of the viewport stays there while the jobs before
// it run.

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/redisq"
)

// followPoll reads the page again after a poll it has not followed.
func (q queueView) followPoll(p polled) (view, tea.Cmd, bool) {
	// A query's page is a walk of the whole queue: r reads it again.
	if q.loading || q.reader == nil || !q.loaded && q.err == nil || !q.query.Empty() {
		return q, nil, false
	}
	f, start := q.poll.follow(p)
	changed := f != q.poll
	q.poll = f
	if !start {
		return q, nil, changed
	}
	q = q.startLoad(q.offset, q.seq+1)
	return q, queuePageCmd(q.reader, q.id, q.job, q.offset, QueuePageSize, q.seq, q.timeout), true
}

// withReread shows a page read again, keeping the line at the top of the
// viewport on the same job: found by its bytes, else the same line.
func (q queueView) withReread(p redisq.QueuePage) queueView {
	q.poll.running, q.loaded = false, true
	q.poll.readAt = q.poll.last.at
	_, starts := queueJobLines(q.page, q.job, q.redisTime, q.width)
	y := q.vp.YOffset
	top, within := -1, 0
	for i, s := range starts {
		if s <= y {
			top, within = i, y-s
		}
	}
	var raw string
	if top >= 0 && top < len(q.page.Jobs) {
		raw = q.page.Jobs[top].Raw
	}
	q.page = p
	lines, starts := queueJobLines(p, q.job, q.redisTime, q.width)
	q.vp.SetContent(strings.Join(lines, "\n"))
	for i, j := range p.Jobs {
		if raw != "" && j.Raw == raw {
			y = starts[i] + within
			break
		}
	}
	q.vp.SetYOffset(y)
	return q
}

// errText is the read error after a note, "" without one.
func (q queueView) errText() string {
	if q.err == nil {
		return ""
	}
	return ": could not read the queue: " + oneLine(q.err.Error())
}
