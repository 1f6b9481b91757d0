package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// view is one tab of the screen. A view owns its rows, cursor and filter,
// knows its size, its own key bindings and how to draw itself; the root
// model only routes to it. Views are values: every method returns the view
// changed, and the root stores it back in its slot. A new view is a file
// with a type that implements this, and one entry in New's tabs.
type view interface {
	// title is the name on the view's tab.
	title() string
	// setSnapshot gives the view a new snapshot and the queue history.
	setSnapshot(s *model.Snapshot, h queueHistory) view
	// setOrphans gives the view the orphans the last scan found.
	setOrphans(o []model.InProgressList) view
	// setSize is the body the view draws in, its column titles included.
	setSize(width, height int) view
	filterText() string
	setFilter(f string) view
	// navigate applies a key the root did not take (up, down, ...).
	navigate(msg tea.KeyMsg, k keyMap) view
	// selected is what is under the cursor, for the actions and the
	// detail view.
	selected() selection
	// keys enables the view's own bindings (enter on a pool, ...) in the
	// key map the root built.
	keys(k keyMap) keyMap
	// render draws the view: exactly its height in lines, none wider
	// than its width.
	render(c renderContext) string
}

// enterer is a view that opens something of its own on enter (the Workers
// view opens the selected job's arguments) instead of the pool detail or
// the queue the root opens.
type enterer interface{ enter() view }

// backer is a view that closes what it opened on esc; handled is false when
// nothing was open, and esc then clears the filter.
type backer interface{ back() (view, bool) }

// selection is what is under a view's cursor: at most one of these is set.
type selection struct {
	pool    *model.Pool
	jobType *model.JobType
	orphan  *model.InProgressList
}

// renderContext is what a view draws with besides its own state.
// fetchedAt is when the last snapshot arrived (the screen's clock).
type renderContext struct {
	st        styles
	now       time.Time
	fetchedAt time.Time
	scan      scanStatus
}
