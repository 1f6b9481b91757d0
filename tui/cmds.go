package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/model"
)

// Commands are built from plain values (never the model) and each carries
// its own timeout, so Update never blocks and a stuck Redis cannot pile up
// work.

// pollFunc is one poll of the source, with what it reads fixed when the
// command is built.
type pollFunc func(ctx context.Context) (*model.Snapshot, error)

// fetchCmd takes one snapshot and says how long it took.
func fetchCmd(poll pollFunc, gen uint64, timeout time.Duration, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		start := now()
		snap, err := poll(ctx)
		if err == nil && snap == nil {
			err = errNoSnapshot
		}
		at := now()
		return snapshotMsg{gen: gen, snap: snap, err: err, at: at, took: at.Sub(start)}
	}
}

// sweepCmd reads the whole namespace once.
func sweepCmd(s Sweeper, gen uint64, timeout time.Duration, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		snap, err := s.Sweep(ctx)
		if err == nil && snap == nil {
			err = errNoSnapshot
		}
		return sweepMsg{gen: gen, snap: snap, err: err, at: now()}
	}
}

// peekCmd reads up to limit in-progress jobs of a pool, job type by job
// type in the order given, for the detail view view.
func peekCmd(p Peeker, poolID string, jobNames []string, limit int, view, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var out []peekedJob
		for _, name := range jobNames {
			if len(out) >= limit {
				break
			}
			payloads, err := p.PeekInProgress(ctx, poolID, name, limit-len(out))
			if err != nil {
				return peekMsg{view: view, poolID: poolID, seq: seq, jobs: out, err: err}
			}
			for _, pl := range payloads {
				out = append(out, peekedJob{jobName: name, payload: pl})
			}
		}
		if len(out) > limit {
			out = out[:limit]
		}
		return peekMsg{view: view, poolID: poolID, seq: seq, jobs: out}
	}
}

// runActionCmd runs a confirmed action in its own goroutine and returns the
// command that delivers its first event. Progress events are dropped when
// the screen is behind (only the latest matters); the done event is always
// delivered. The audit line is written once the action returns, whatever
// the outcome.
func runActionCmd(parent context.Context, a action, seq int, timeout time.Duration, auditor Auditor, entry audit.Entry, now func() time.Time) tea.Cmd {
	ch := make(chan tea.Msg, 1)
	var events <-chan tea.Msg = ch
	start := func() tea.Msg {
		go func() {
			ctx, cancel := context.WithTimeout(parent, timeout)
			defer cancel()
			progress := func(moved, total int64) {
				select {
				case ch <- actionProgressMsg{seq: seq, moved: moved, total: total, ch: events}:
				default:
				}
			}
			out, err := a.run(ctx, progress)
			var auditErr error
			if auditor != nil {
				entry.Time = now()
				entry.Moved = out.moved
				entry.Result = out.summary
				entry.Journal = out.journal
				if err != nil {
					entry.Result = "error: " + err.Error()
				}
				auditErr = auditor.Record(entry)
			}
			ch <- actionDoneMsg{seq: seq, outcome: out, err: err, auditErr: auditErr}
		}()
		return <-events
	}
	return start
}

// waitActionCmd delivers the next event of a running action.
func waitActionCmd(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

// after schedules a message; tests replace it to run timers at once.
type afterFunc func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
