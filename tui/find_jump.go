package tui

// This file opens the find view (f, :find) and goes from a place found to
// the view that shows it: the Jobs view on that set filtered to the id,
// the pool's detail for an in-progress list or a busy worker, the queue of
// the job type.

import (
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// askFind is f: the command line opens with ":find " and the id of the job
// under the cursor in the Jobs view, to run with enter or to change.
func (m Model) askFind() (Model, tea.Cmd) {
	line := "find "
	if p, ok := m.top().(jobIDPicker); ok {
		if id, ok := p.pickedJobID(); ok {
			line += id
		}
	}
	m.cmdline.open = true
	m.cmdline.input = filterInput{}.set(textsafe.Clean(line))
	m.cmdline.hist = len(m.cmdline.history)
	m.cmdline = m.cmdline.endCycle()
	m.status = statusLine{}
	return m, nil
}

// find is :find ID... or :find QUERY: the search opens as a view on the
// stack. A bad query is one line; nothing is read.
func (m Model) find(args []string) (Model, tea.Cmd) {
	text := ""
	if len(args) > 0 {
		text = args[0]
	}
	spec, err := parseFind(text, m.queryNow())
	if err != nil {
		return m.setStatus("find: "+oneLine(err.Error()), true)
	}
	if m.rd.Find == nil {
		return m.setStatus("find is not available here", true)
	}
	return m.push(newFindView(m.views, text, spec, m.keys, m.rd.Find, m.opts.ActionTimeout))
}

// snapPool is a pool of the last poll.
func (m Model) snapPool(id string) (*model.Pool, bool) {
	if m.snap == nil {
		return nil, false
	}
	return m.snap.Pool(id)
}

// placeMsg is enter on a place the find view lists: the root opens the
// view that shows it (jumpToPlace).
type placeMsg struct{ p redisq.Place }

// jumpToPlace opens the view of a place found.
func (m Model) jumpToPlace(p redisq.Place) (Model, tea.Cmd) {
	switch p.Kind {
	case redisq.PlaceRetry, redisq.PlaceScheduled, redisq.PlaceDead:
		if m.setsTab() < 0 {
			return m.setStatus("the Jobs view is not available here", true)
		}
		if p.ID == "" {
			return m.setStatus("this member has no id to filter by", true)
		}
		return m.showJobsView(showJobsMsg{set: model.SetName(p.Kind), query: "id:" + strconv.Quote(p.ID), filter: true})
	case redisq.PlaceInProgress, redisq.PlaceWorker:
		if _, ok := m.snapPool(p.Pool); !ok {
			return m.setStatus("pool "+textsafe.Clean(model.ShortID(p.Pool))+" is not in the last poll: press r", true)
		}
		return m.push(newDetail(m.views, p.Pool, m.snap, m.keys, m.rd.Peek, m.opts.FetchTimeout))
	case redisq.PlaceQueue:
		if m.rd.Queue == nil {
			return m.setStatus("queue contents are not available here", true)
		}
		q := m.newQueue(p.Name)
		q.offset = int(p.Position) // the page starts at the job
		return m.push(q)
	}
	return m.setStatus("no view shows unique keys: the job's key blocks a new enqueue until its TTL ends", false)
}
