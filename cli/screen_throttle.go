package cli

// This file owns what the screen needs of throttles: its polls mark the
// throttled job types from the journal beside the audit log (read again
// only when the journal's files change), and its throttles are journalled
// there like the command's.

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// throttleMarks reads the journal's throttles for the polls, again only
// when a file of the journal has changed (a stat per file per poll).
type throttleMarks struct {
	dir     journal.Dir
	address string
	mu      sync.Mutex
	stamp   string
	actions []*journal.Action
}

// stampOf names the state of the journal's files: their names, sizes and
// times; "" when the directory cannot be read.
func (m *throttleMarks) stampOf() string {
	entries, err := os.ReadDir(m.dir.Path)
	if err != nil {
		return ""
	}
	b := make([]byte, 0, 64*len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		b = fmt.Appendf(b, "%s/%d/%d;", e.Name(), fi.Size(), fi.ModTime().UnixNano())
	}
	return string(b)
}

// mark marks snap's throttled job types.
func (m *throttleMarks) mark(snap *model.Snapshot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.stampOf(); s != m.stamp || s == "" {
		m.stamp = s
		m.actions = nil
		if s != "" {
			m.actions, _, _ = m.dir.List() // an unreadable journal marks nothing
		}
	}
	reaper.MarkThrottled(snap, m.actions, m.address)
}

// markingPoller is a Poller whose snapshots carry the throttle marks.
type markingPoller struct {
	tui.Poller
	marks *throttleMarks
}

func (p markingPoller) Poll(ctx context.Context, req redisq.PollRequest) (*model.Snapshot, error) {
	snap, err := p.Poller.Poll(ctx, req)
	if err == nil && snap != nil {
		p.marks.mark(snap)
	}
	return snap, err
}

// throttleMarking wraps poller so that its snapshots mark throttles from
// the history's journal (none without one).
func throttleMarking(poller tui.Poller, h screenHistory) tui.Poller {
	if h.dir.Path == "" {
		return poller
	}
	return markingPoller{Poller: poller, marks: &throttleMarks{dir: h.dir, address: h.t.address()}}
}

// screenThrottler is the screen's Throttler, journalled in j (not when j
// is nil).
type screenThrottler struct {
	pool *redis.Pool
	j    *screenJournal
}

func (s screenThrottler) Throttle(ctx context.Context, plan reaper.ThrottlePlan) (reaper.ThrottleResult, error) {
	res := reaper.ThrottleResult{Name: plan.Name, Key: plan.Key, New: plan.New}
	c, err := s.pool.GetContext(ctx)
	if err != nil {
		return res, fmt.Errorf("throttle: %w", err)
	}
	defer c.Close()
	if s.j == nil {
		return reaper.ExecuteThrottle(ctx, c, plan)
	}
	w, err := s.j.create(journal.OpThrottle, "screen "+plan.Verb(), []string{plan.Name})
	if err != nil {
		return res, err
	}
	res, execErr := reaper.ExecuteThrottleJournal(ctx, c, plan, w)
	res.Journal = w.ID()
	done := int64(0)
	if res.Status == reaper.ThrottleDone {
		done = 1
	}
	return res, closeScreenJournal(w, done, "", execErr)
}
