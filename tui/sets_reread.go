package tui

// This file owns how the Jobs view follows the polls (pollFollower): while
// it is on screen, each poll is followed by one read of the page it shows (a
// ZRANGE of the page and a ZCARD, never a scan), so that a member that
// left the set disappears and a new one appears, with the cursor kept on
// its member, and the marks and the query as they were.

import (
	"bytes"
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// SetPageFollower reads again a page of a job set filtered by a query
// without a walk of the set (redisq.FollowSetPage; *redisq.Client in the
// program). Without it, such a page is read again on r only.
type SetPageFollower interface {
	FollowSetPage(ctx context.Context, set model.SetName, f redisq.SetFilter, prev redisq.SetPage, o redisq.PageOptions) (redisq.SetPage, error)
}

// setsFollow is the state of the Jobs view's re-reads.
type setsFollow struct {
	// last is the poll (Model.polls) that the last read of the page
	// followed: the next re-read waits for a newer one.
	last uint64
	// running is set while a re-read runs; there is never more than one.
	running bool
	// readAt is when the page shown was read (the screen's clock).
	readAt time.Time
	// fresh counts the members that came in above the first one shown
	// since the page was opened (the top page, newest first).
	fresh int64
}

// setsRereadCmd reads the page shown again: one read of the page and the
// set's size, without the other sets' sizes (the poll reads them).
func setsRereadCmd(r JobSetReader, set model.SetName, o redisq.PageOptions, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		msg := setsPageMsg{seq: seq, reread: true}
		msg.page, msg.err = r.SetPage(ctx, set, redisq.SetFilter{}, o, redisq.ScanOptions{})
		return msg
	}
}

// setsChaseCmd is setsRereadCmd of the page the member under the cursor
// was pushed onto.
func setsChaseCmd(r JobSetReader, set model.SetName, o redisq.PageOptions, seq int, timeout time.Duration) tea.Cmd {
	read := setsRereadCmd(r, set, o, seq, timeout)
	return func() tea.Msg {
		msg := read().(setsPageMsg)
		msg.chase = true
		return msg
	}
}

// pageHolds reports whether page p lists the member of key k.
func pageHolds(p redisq.SetPage, k string) bool {
	for _, sj := range p.Jobs {
		if memberKey(sj) == k {
			return true
		}
	}
	return false
}

// setsFollowCmd reads a filtered page again from what it showed (prev):
// one round trip, never a walk of the set.
func setsFollowCmd(r SetPageFollower, set model.SetName, f redisq.SetFilter, prev redisq.SetPage, o redisq.PageOptions, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		msg := setsPageMsg{seq: seq, reread: true}
		msg.page, msg.err = r.FollowSetPage(ctx, set, f, prev, o)
		return msg
	}
}

// followPoll reads the Jobs view's page again when a poll arrived since
// its last read and no read runs (pollFollower). A page filtered by a
// query is followed from what it shows (SetPageFollower), or, without
// that, read again on r only, saying how old it is.
func (v setsView) followPoll(p polled) (view, tea.Cmd, bool) {
	if v.rd.sets == nil || !v.loaded || v.loading || v.poll.running || v.showSummary || v.poll.last == p.n {
		return v, nil, false
	}
	f := redisq.SetFilter{Query: v.query}
	if !f.Empty() && (v.rd.follow == nil || v.err != nil) {
		// A filtered page that is not there to follow (its read failed)
		// is read again on r.
		return v, nil, false
	}
	v.poll.last = p.n
	v.poll.running = true
	v.loadSeq++
	o := v.pageOptions(v.offset)
	if f.Empty() {
		return v, setsRereadCmd(v.rd.sets, v.set, o, v.loadSeq, v.pace.fetch), true
	}
	prev := redisq.SetPage{Set: v.set, Offset: v.offset, Total: v.total, Jobs: v.page}
	return v, setsFollowCmd(v.rd.follow, v.set, f, prev, o, v.loadSeq, v.pace.fetch), true
}

// onReread takes a re-read: the page replaces the one shown, the cursor
// stays on the member it is on now (on the same row when that member
// left), and the window stays where it was, unless it showed the top of
// the page, where the new members come in.
func (v setsView) onReread(msg setsPageMsg) (view, tea.Cmd) {
	v.poll.running = false
	if msg.seq != v.loadSeq {
		return v, nil // a read asked for since replaced it
	}
	if msg.err != nil {
		// The page stays, with the error and its age.
		v.err = msg.err
		return v, nil
	}
	p := msg.page
	if len(p.Jobs) == 0 && p.Offset > 0 && p.Total > 0 {
		// The page emptied: show the last one that has jobs.
		last := int((p.Total - 1) / setsPageSize * setsPageSize)
		return v.load(min(last, p.Offset-setsPageSize), false)
	}
	v.err = nil
	v.poll.readAt = v.pace.now()
	v.poll.fresh = v.freshAfter(p)
	if v.counts != nil && v.query == nil {
		// An unfiltered page's total is the set's size.
		c := withSetCount(*v.counts, v.set, p.Total)
		v.counts = &c
	}
	oldRow, oldOffset := v.list.cursor, v.list.offset
	v.keep, v.keepIndex = "", oldRow
	if sj, ok := v.current(); ok {
		v.keep = memberKey(sj)
	}
	if grew := p.Total - v.total; grew > 0 && !msg.chase && v.query == nil && v.newestFirst() && v.keep != "" && !pageHolds(p, v.keep) {
		// New members above pushed the one under the cursor off the
		// page: read the page it is on now, once.
		v.poll.running = true
		v.loadSeq++
		o := v.pageOptions(v.offset + int(grew))
		return v, setsChaseCmd(v.rd.sets, v.set, o, v.loadSeq, v.pace.fetch)
	}
	old := v.page
	v = v.withPage(p)
	if oldOffset > 0 {
		// Held away from the top: the member under the cursor stays on
		// the same line of the screen.
		v.list.offset = oldOffset + v.list.cursor - oldRow
		v.list = v.list.clamp(len(v.page), v.listHeight())
	}
	var left int
	if v.marked, left = v.unmarkLeft(old, p); left > 0 {
		// R or D on them would find them gone.
		return v, statusCmd(plural(left, "marked job", "marked jobs")+" left the set: unmarked", false)
	}
	return v, nil
}

// unmarkLeft is the marks less those of the members of the page shown
// before (old) that page p shows left the set: absent from p where p
// would list them, between its first member and its last (its end when
// it is not full). It returns how many marks it took away.
func (v setsView) unmarkLeft(old []model.SetJob, p redisq.SetPage) (map[string]model.SetJob, int) {
	if len(v.marked) == 0 || len(p.Jobs) == 0 {
		return v.marked, 0
	}
	newest := v.newestFirst()
	before := func(a, b model.SetJob) bool {
		if newest {
			return newerMember(a, b)
		}
		return newerMember(b, a)
	}
	first, last := p.Jobs[0], p.Jobs[len(p.Jobs)-1]
	full := len(p.Jobs) >= setsPageSize
	shown := make(map[string]bool, len(p.Jobs))
	for _, sj := range p.Jobs {
		shown[memberKey(sj)] = true
	}
	var gone []string
	for _, sj := range old {
		k := memberKey(sj)
		if _, on := v.marked[k]; !on || shown[k] || p.Offset > 0 && before(sj, first) || full && before(last, sj) {
			continue
		}
		gone = append(gone, k)
	}
	if len(gone) == 0 {
		return v.marked, 0
	}
	marked := make(map[string]model.SetJob, len(v.marked))
	for k, sj := range v.marked {
		marked[k] = sj
	}
	for _, k := range gone {
		delete(marked, k)
	}
	return marked, len(gone)
}

// freshAfter is the count of new members once page p replaces the one
// shown: those p lists above the first member shown, added to the count
// so far unless the cursor was on the top row (the operator has seen
// what came before). Only the top page, newest first, takes new members
// at its top; a whole page of them counts the set's growth.
func (v setsView) freshAfter(p redisq.SetPage) int64 {
	if v.offset != 0 || p.Offset != 0 || !v.newestFirst() || len(v.page) == 0 {
		return v.poll.fresh
	}
	fresh := v.poll.fresh
	if v.list.cursor == 0 {
		fresh = 0
	}
	first := v.page[0]
	var n int64
	for _, sj := range p.Jobs {
		if !newerMember(sj, first) {
			break
		}
		n++
	}
	if n == int64(len(p.Jobs)) {
		n = max(n, p.Total-v.total)
	}
	return fresh + n
}

// newerMember reports whether a comes before b newest first: a higher
// score, ties by the member's bytes, as ZREVRANGE orders them.
func newerMember(a, b model.SetJob) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return bytes.Compare(a.Raw, b.Raw) > 0
}

// freshText is the title line's count of new members, shown while the
// cursor is held away from the top, where they are.
func (v setsView) freshText() string {
	if v.poll.fresh <= 0 || v.list.cursor == 0 && v.offset == 0 {
		return ""
	}
	return fmt.Sprintf("%d new since opened", v.poll.fresh)
}

// withSetCount is c with the size of set replaced by n.
func withSetCount(c redisq.SetCounts, set model.SetName, n int64) redisq.SetCounts {
	switch set {
	case model.SetRetry:
		c.Retry = n
	case model.SetScheduled:
		c.Scheduled = n
	case model.SetDead:
		c.Dead = n
	}
	return c
}
