package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/model"
)

// view is one layer of the screen: a tab, or what is pushed on it (a
// pool's detail, a queue, a worker's arguments; see stack.go). A view owns
// its rows, cursor and filter, its reads, its size, its own key bindings
// and how to draw itself; the root keeps what is global (polls, sweeps,
// scans, the dialog, the running action, the status line, the layout).
// Views are values: every method returns the view changed, and the root
// stores it back in its slot. A view opens another itself: on enter its
// update returns pushCmd with the view to push (stack.go). What is under
// its cursor the actions learn from the small pickers below, and a view
// with a filter is filterable. A new tab is a file with a type that
// implements this and one entry in New's tabs; a new pushed view is a file
// and the pushCmd of the view that opens it.
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
	// keys enables the view's own bindings (enter on a pool, ...) in the
	// key map the root built.
	keys(k keyMap) keyMap
	// render draws the view: exactly its height in lines, none wider
	// than its width.
	render(c renderContext) string
}

// snapshotShown gives the views a new snapshot and the queue history;
// poll is the number of the last poll (Model.polls), which a view that
// follows the polls reads from.
type snapshotShown struct {
	snap *model.Snapshot
	hist queueHistory
	poll uint64
}

// orphansFound gives the views the orphans the last scan found.
type orphansFound struct{ list []model.InProgressList }

// filterable is a view whose rows / filters (the lists); the others have
// no filter.
type filterable interface {
	filterText() string
	setFilter(f string) view
}

// What is under a view's cursor, for the actions: a view where a pool, a
// job type, an orphaned list or an action of the journal can be under
// the cursor implements the picker of it.
type (
	poolPicker    interface{ pickedPool() (model.Pool, bool) }
	jobTypePicker interface{ pickedJobType() (model.JobType, bool) }
	orphanPicker  interface {
		pickedOrphan() (model.InProgressList, bool)
	}
	actionPicker interface {
		pickedAction() (journal.Summary, bool)
	}
)

// poolDetail is the view of one pool: the polls read every in-progress
// list of that pool while it is open, and R requeues a dead one's lists.
type poolDetail interface{ detailPool() (model.Pool, bool) }

// workersShower is a view that shows the workers' observations, which
// the regular poll reads only while one is on show.
type workersShower interface{ showsWorkers() bool }

// jobsShower is the Jobs view, which the command line, a place found and
// a bucket of the timeline bring on screen (showJobsMsg).
type jobsShower interface{ showsJobs() }

// jobIDPicker is a view with a job under its cursor (the Jobs view's
// list): f opens :find with its id.
type jobIDPicker interface{ pickedJobID() (string, bool) }

// keySelector is a list that puts its cursor on the row of a key (a pool
// ID, a job type's name), clearing its filter when it hides that row; ok
// is false when it has no such row.
type keySelector interface {
	selectKey(key string) (view, bool)
}

// toggled is a pushed view that the key that opens it closes (? on the
// help).
type toggled interface{ closedBy(k keyMap) key.Binding }

// copier is a view that copies something besides what its pickers pick
// (a worker's job, a member of a set): c copies its item.
type copier interface{ copyItem() (copyItem, bool) }

// aboutOne is a view about one job type or pool as a whole (an
// explanation, a queue): e explains it.
type aboutOne interface{ explainSubject() explainSubject }

// keyTaker is a view with keys of its own that the root would otherwise
// take (every key while it is typing, '/' that opens its query, esc that
// drops its marks): the root gives the keys it takes to its update first.
type keyTaker interface{ takesKey(msg tea.KeyMsg) bool }

// drainer is a view whose query marks jobs to delete or park (a queue):
// A toggles its marks, D and P plan the drain of what it marked.
type drainer interface {
	drainQuery() drainQuery
	toggleMarks() (v view, marked bool)
}

// drainQuery is what a drainer's D or P takes: the job type's queue, the
// query and its text, and whether A marked what it matches.
type drainQuery struct {
	job    string
	query  *model.Query
	where  string
	marked bool
}

// statusMsg asks the root to show text in the status line: a view
// returns it (statusCmd) to say something.
type statusMsg struct {
	text  string
	isErr bool
}

// statusCmd is the command that shows text in the status line.
func statusCmd(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: text, isErr: isErr} }
}

// actionDone tells every view, the tabs and the pushed ones, that an
// action of kind has ended, before they read again what they show (a
// queue drops its marks after a drain: what they counted has changed; the
// Jobs view reads its page again after one of its jobs moved).
type actionDone struct{ kind actionKind }

// renderContext is what a view draws with besides its own state.
// fetchedAt is when the last snapshot arrived (the screen's clock).
type renderContext struct {
	st        styles
	now       time.Time
	fetchedAt time.Time
	scan      scanStatus
}
