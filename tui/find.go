package tui

// This file owns the find view: f (or :find ID... / :find QUERY) looks for
// jobs in every place gocraft/work keeps one, with the same search as
// `workq-tui find` (redisq.Find, through the reader's Finder), and lists
// one line per place. enter on a place opens the view that shows it (see
// find_jump.go).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// Finder looks for jobs in every place (redisq.Find in the program, the
// search of `workq-tui find`).
type Finder interface {
	Find(ctx context.Context, spec redisq.FindSpec) ([]redisq.Place, error)
}

// findMsg is the result of one search of find view view.
type findMsg struct {
	view, seq int
	places    []redisq.Place
	err       error
}

func findCmd(f Finder, spec redisq.FindSpec, view, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		places, err := f.Find(ctx, spec)
		return findMsg{view: view, seq: seq, places: places, err: err}
	}
}

// findView is the places a search found.
type findView struct {
	id      int
	km      keyMap
	finder  Finder
	timeout time.Duration
	// text is what was asked for (ids or a query), spec the search.
	text string
	spec redisq.FindSpec

	loader
	places []redisq.Place
	// now is Redis's clock of the last snapshot, for the ages.
	now time.Time

	list          listState
	width, height int
}

// parseFind reads the argument of :find: words written as terms
// (KEY:VALUE, see model.SplitQuery) are a query of the command line's language,
// the others job ids. A bad query is one line naming the term.
func parseFind(text string, now time.Time) (redisq.FindSpec, error) {
	words, err := model.SplitQuery(text)
	if err != nil {
		return redisq.FindSpec{}, err
	}
	var ids, terms []string
	for _, w := range words {
		if w.Term {
			terms = append(terms, w.Src)
		} else {
			ids = append(ids, w.Plain)
		}
	}
	if len(ids) == 0 && len(terms) == 0 {
		return redisq.FindSpec{}, fmt.Errorf("find needs a job id or a query (args.order_id:42, job:NAME, err:TEXT)")
	}
	spec := redisq.FindSpec{IDs: ids, Now: now, Paced: true}
	if len(terms) > 0 {
		q, err := model.ParseQuery(strings.Join(terms, " "), model.QueryClock{Now: now, Zone: time.UTC})
		if err != nil {
			return redisq.FindSpec{}, err
		}
		spec.Query = q
	}
	return spec, nil
}

func newFindView(id int, text string, spec redisq.FindSpec, k keyMap, f Finder, timeout time.Duration) findView {
	return findView{id: id, km: k, finder: f, timeout: timeout, text: text, spec: spec, now: spec.Now}
}

func (v findView) title() string { return "find " + textsafe.Clean(v.text) }

func (v findView) setSnapshot(s *model.Snapshot, _ queueHistory) view {
	if s != nil && !s.RedisTime.IsZero() {
		v.now = s.RedisTime
	}
	return v
}

// picked is the place under the cursor: enter opens the view of it.
func (v findView) picked() (redisq.Place, bool) {
	if v.list.cursor < 0 || v.list.cursor >= len(v.places) {
		return redisq.Place{}, false
	}
	return v.places[v.list.cursor], true
}

func (v findView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotShown:
		return v.setSnapshot(msg.snap, msg.hist), nil
	case loadMsg:
		v.loader = v.start()
		spec := v.spec
		spec.Now = v.now
		return v, findCmd(v.finder, spec, v.id, v.seq, v.timeout)
	case findMsg:
		var ok bool
		if v.loader, ok = v.take(v.id, msg.view, msg.seq, msg.err); !ok {
			return v, nil
		}
		v.places = msg.places
		v.list = v.list.clamp(len(v.places), v.listHeight())
		return v, nil
	case tea.KeyMsg:
		if p, ok := v.picked(); ok && key.Matches(msg, v.km.get(actions.Enter)) {
			return v, func() tea.Msg { return placeMsg{p: p} }
		}
		if l, ok := v.list.navigate(msg, v.km, len(v.places), v.listHeight()); ok {
			v.list = l
		}
	}
	return v, nil
}

func (v findView) setSize(w, h int) view {
	v.width, v.height = w, h
	v.list = v.list.clamp(len(v.places), v.listHeight())
	return v
}

// listHeight is the rows shown: the body less the title line and the
// column titles.
func (v findView) listHeight() int { return max(v.height-2, 1) }

// keys: enter opens the place under the cursor, esc goes back.
func (v findView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, len(v.places) > 0)
	k.setHelp(actions.Enter, "enter", "go there")
	k.enable(actions.Filter, false)
	k.enable(actions.Back, true)
	return k
}

func (v findView) render(c renderContext) string {
	w := v.width
	head := "find " + textsafe.Clean(v.text) + ": "
	switch {
	case v.loading:
		head += "looking in every place…"
	case v.err != nil:
		head += c.st.statusErr.Render("error: " + oneLine(v.err.Error()))
	case len(v.places) == 0:
		head += "no job found anywhere"
	default:
		head += plural(len(v.places), "place", "places")
	}
	lines := []string{fitLine(head, w)}
	cols := findColumns(w)
	lines = append(lines, fitLine(c.st.colHeader.Render("  "+renderCells(cols, titleCells(cols))), w))
	from, to := v.list.window(len(v.places), v.listHeight())
	for i := from; i < to; i++ {
		row := renderCells(cols, placeCells(v.places[i], v.now))
		if i == v.list.cursor {
			lines = append(lines, fitLine(c.st.selectRow(row), w))
		} else {
			lines = append(lines, fitLine("  "+row, w))
		}
	}
	return fitBlock(strings.Join(lines, "\n"), w, v.height)
}

func findColumns(width int) []column {
	return layoutColumns([]colSpec{
		{title: "PLACE", min: 11, max: 11, keep: 100},
		{title: "ID", min: 6, max: 12, keep: 90},
		{title: "JOB", min: 8, max: 16, keep: 95},
		{title: "WHERE", min: 10, keep: 99},
	}, nil, width-2)
}

// placeCells are a place's cells, clean: where it is, as `workq-tui find`
// says it (with the screen's short ids and ages).
func placeCells(p redisq.Place, now time.Time) []string {
	c := textsafe.Clean
	id := c(p.ID)
	if id == "" {
		id = "-"
	}
	ago := func(s int64) string { return model.FormatAge(now.Sub(time.Unix(s, 0)).Truncate(time.Second)) }
	pool := c(model.ShortID(p.Pool))
	var where string
	switch p.Kind {
	case redisq.PlaceQueue:
		where = fmt.Sprintf("queue, %d run before it", p.Position)
		if p.Paused {
			where = fmt.Sprintf("queue, paused, %d before it", p.Position)
		}
	case redisq.PlaceInProgress:
		where = fmt.Sprintf("running in pool %s (%s)", pool, p.PoolStatus)
	case redisq.PlaceRetry, redisq.PlaceScheduled, redisq.PlaceDead:
		where = fmt.Sprintf("%s %s", p.ScoreField, unixText(p.At, now))
	case redisq.PlaceWorker:
		where = fmt.Sprintf("worker %s, pool %s (%s), for %s", c(model.ShortID(p.Worker)), pool, p.PoolStatus, ago(p.StartedAt))
		if p.CheckinAt != 0 {
			where += ", check-in " + ago(p.CheckinAt) + " ago"
		}
	case redisq.PlaceUnique:
		ttl := "no TTL"
		if p.TTL >= 0 {
			ttl = fmt.Sprintf("TTL %ds", p.TTL)
		}
		where = "unique key blocks a new enqueue, " + ttl
	}
	return []string{p.Kind, id, c(p.Name), where}
}
