package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// view is one layer of the screen: a tab, or what is pushed on it (a
// pool's detail, a queue, a worker's arguments; see stack.go). A view owns
// its rows, cursor and filter, its reads, its size, its own key bindings
// and how to draw itself; the root keeps what is global (polls, sweeps,
// scans, the dialog, the running action, the status line, the layout).
// Views are values: every method returns the view changed, and the root
// stores it back in its slot. A new tab is a file with a type that
// implements this and one entry in New's tabs; a new pushed view is a file
// and one place that pushes it.
type view interface {
	// title is the name on the view's tab; a pushed view's, when not
	// empty, follows the tab's after a "›".
	title() string
	// update takes a key the root did not take (only the view on top gets
	// keys), the results of the view's own reads, loadMsg, and what the
	// root reads for every view: snapshotShown and orphansFound. It
	// returns the view changed and its command, like a bubbletea model; a
	// pushed view returns nil when what it shows is gone: it closes. A
	// view ignores the messages it has no use for.
	update(msg tea.Msg) (view, tea.Cmd)
	// setSize is the body the view draws in, its column titles included.
	setSize(width, height int) view
	// selected is what is under the cursor, for the actions and for
	// what enter opens.
	selected() selection
	// keys enables the view's own bindings (enter on a pool, ...) in the
	// key map the root built.
	keys(k keyMap) keyMap
	// render draws the view: exactly its height in lines, none wider
	// than its width.
	render(c renderContext) string
}

// snapshotShown gives the views a new snapshot and the queue history.
type snapshotShown struct {
	snap *model.Snapshot
	hist queueHistory
}

// orphansFound gives the views the orphans the last scan found.
type orphansFound struct{ list []model.InProgressList }

// filterable is a view whose rows / filters (the lists); the others have
// no filter.
type filterable interface {
	filterText() string
	setFilter(f string) view
}

// selection is what is under a view's cursor: at most one of these is set.
type selection struct {
	pool    *model.Pool
	jobType *model.JobType
	orphan  *model.InProgressList
	worker  *model.Worker
	// action is an action of the journal (the history view).
	action *journal.Summary
	// window is a bucket of the timeline.
	window *timeWindow
	// place is where a job was found (the find view).
	place *redisq.Place
}

// renderContext is what a view draws with besides its own state.
// fetchedAt is when the last snapshot arrived (the screen's clock).
type renderContext struct {
	st        styles
	now       time.Time
	fetchedAt time.Time
	scan      scanStatus
}
