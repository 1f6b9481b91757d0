package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// tickMsg asks for the next poll. gen is the generation that armed it; a
// tick from an older generation (a refresh happened since) is dropped.
type tickMsg struct{ gen uint64 }

// snapshotMsg is the result of one poll, tagged with the generation that
// started it. at is when it returned and took how long it ran (the
// screen's clock).
type snapshotMsg struct {
	gen  uint64
	snap *model.Snapshot
	err  error
	at   time.Time
	took time.Duration
}

// sweepMsg is the result of one full sweep, tagged with its generation.
type sweepMsg struct {
	gen  uint64
	snap *model.Snapshot
	err  error
	at   time.Time
}

// sweepTickMsg starts the next sweep, unless one of a newer generation
// started since (r).
type sweepTickMsg struct{ gen uint64 }

// clockMsg redraws the ages ("updated 3s ago") once a second.
type clockMsg struct{}

// peekMsg carries the in-progress jobs of a pool for the detail view.
type peekMsg struct {
	view   int // the detail view that asked
	poolID string
	seq    int
	jobs   []peekedJob
	err    error
}

// peekedJob is one in-progress job as read, not yet cleaned.
type peekedJob struct {
	jobName string
	payload string
}

// actionProgressMsg reports how far a running action is. ch is where the
// next event of the same action comes from.
type actionProgressMsg struct {
	seq          int
	moved, total int64
	ch           <-chan tea.Msg
}

// actionDoneMsg ends a running action.
type actionDoneMsg struct {
	seq      int
	outcome  actionOutcome
	err      error
	auditErr error
}

// statusClearMsg clears the status line if it still shows message id.
type statusClearMsg struct{ id int }
