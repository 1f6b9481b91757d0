package tui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// poolsView is the list of pools: dead first, then by heartbeat age (the
// snapshot's order). The cursor follows a pool ID across polls.
type poolsView struct {
	// cols are the columns shown, by their names (all when empty).
	cols []string
	// km is the key map the view navigates with.
	km        keyMap
	redisTime time.Time
	// the pools, the cursor following a pool ID; height is the rows,
	// without the column titles.
	table[model.Pool]
	width int
}

func (poolsView) title() string { return "Pools" }

func (v poolsView) setSnapshot(s *model.Snapshot, _ queueHistory) view {
	v.items, v.redisTime = s.Pools, s.RedisTime
	return v.refilter()
}

func (v poolsView) filterText() string { return v.filter }

func (v poolsView) setFilter(f string) view {
	v.filter = f
	return v.refilter()
}

// setSize takes the body; one line of it holds the column titles.
func (v poolsView) setSize(w, h int) view {
	v.width, v.table = w, v.resize(max(h-1, 1))
	return v
}

func (v poolsView) keys(k keyMap) keyMap {
	_, ok := v.current()
	k.enable(actions.Enter, ok)
	return k
}

func (v poolsView) pickedPool() (model.Pool, bool) { return v.current() }

// selectKey puts the cursor on the pool of ID id; the filter is cleared
// only when it hides it.
func (v poolsView) selectKey(id string) (view, bool) {
	var ok bool
	v.table, ok = v.table.selectKey(id, poolMatches, poolKey)
	return v, ok
}

// refilter recomputes the rows and puts the cursor back on the selected
// pool ID; when that pool is gone the cursor keeps its position.
func (v poolsView) refilter() poolsView {
	v.table = v.table.refilter(poolMatches, poolKey)
	return v
}

func poolKey(p *model.Pool) string { return p.ID }

func poolMatches(p *model.Pool, f string) bool { return strings.Contains(poolSearchText(p), f) }

func poolSearchText(p *model.Pool) string {
	parts := []string{p.ID, string(p.Status), statusMarker(p.Status)}
	if hb := p.Heartbeat; hb != nil {
		parts = append(parts, hb.Host+":"+strconv.FormatInt(hb.PID, 10))
		parts = append(parts, hb.JobNames...)
	}
	return strings.ToLower(textsafe.Clean(strings.Join(parts, " ")))
}

// update moves the cursor on a navigation key; it reads nothing.
func (v poolsView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if p, ok := v.current(); ok && key.Matches(msg, v.km.get(actions.Enter)) {
			return v, pushCmd(func(e openEnv) (view, string) {
				return newDetail(e.id, p.ID, e.snap, e.keys, e.rd.Peek, e.timeout), ""
			})
		}
		return v.navigate(msg, v.km), nil
	case snapshotShown:
		return v.setSnapshot(msg.snap, msg.hist), nil
	}
	return v, nil
}

func (v poolsView) navigate(msg tea.KeyMsg, k keyMap) view {
	v.table, _ = v.table.navigate(msg, k, poolKey)
	return v
}

func (v poolsView) render(c renderContext) string {
	return renderPools(v.items, v.rows, v.list, v.redisTime, v.width, v.height, v.cols, c.st)
}

// poolColumnSpecs: the pool ID (24 hex in practice) and host shrink on a
// narrow screen; the job names take what is left. Where even the
// minimums do not fit, the concurrency, the start and the host go first:
// the status, the counts and the heartbeat's age stay.
var poolColumnSpecs = []colSpec{
	{title: "STATUS", min: 6, max: 6, keep: 100},
	{title: "POOL", min: 12, max: 24, keep: 99},
	{title: "HOST:PID", min: 14, max: 22, keep: 70},
	{title: "BEAT", min: 6, max: 6, right: true, keep: 98},
	{title: "STARTED", min: 7, max: 7, right: true, keep: 60},
	{title: "CONC", min: 4, max: 4, right: true, keep: 50},
	{title: "INPROG", min: 6, max: 6, right: true, keep: 97},
	{title: "LOCKS", min: 5, max: 5, right: true, keep: 96},
	{title: "JOBS", min: 4, keep: 80},
}

func poolColumns(width int, names []string) []column {
	return layoutColumns(poolColumnSpecs, names, width-cursorWidth)
}

// cursorWidth is the "> " in front of every row.
const cursorWidth = 2

// renderPools renders the column titles and the visible rows only (never
// all of them: a namespace may hold 10,000 pools), exactly height+1 lines.
func renderPools(pools []model.Pool, rows []int, l listState, redisTime time.Time, width, height int, names []string, st styles) string {
	cols := poolColumns(width, names)
	titles := titleCells(cols)
	lines := make([]string, 0, height+1)
	lines = append(lines, fitLine(st.colHeader.Render(strings.Repeat(" ", cursorWidth)+renderCells(cols, titles)), width))
	from, to := l.window(len(rows), height)
	for i := from; i < to; i++ {
		p := &pools[rows[i]]
		sel := i == l.cursor
		lines = append(lines, renderPoolRow(p, cols, redisTime, sel, width, st))
	}
	if len(rows) == 0 {
		lines = append(lines, st.faint.Render("  no pools"))
	}
	return fitBlock(strings.Join(lines, "\n"), width, height+1)
}

func renderPoolRow(p *model.Pool, cols []column, redisTime time.Time, selected bool, width int, st styles) string {
	marker := statusMarker(p.Status)
	status := statusStyle(p.Status, st).Render(marker)
	host, started, conc, jobs := "-", "-", "-", "-"
	if hb := p.Heartbeat; hb != nil {
		host = textsafe.Clean(hb.Host) + ":" + strconv.FormatInt(hb.PID, 10)
		if hb.StartedAt > 0 {
			started = model.FormatAge(redisTime.Sub(timeUnix(hb.StartedAt)))
		}
		conc = strconv.FormatInt(hb.Concurrency, 10)
		jobs = textsafe.Clean(strings.Join(hb.JobNames, ","))
	}
	cells := []string{status, textsafe.Clean(p.ID), host, beatAge(p), started, conc,
		strconv.FormatInt(p.InProgressTotal(), 10), strconv.FormatInt(p.LocksHeld(), 10), jobs}
	row := renderCells(cols, cells)
	if selected {
		return fitLine(st.selectRow(row), width)
	}
	return fitLine("  "+row, width)
}

// beatAge is the heartbeat age as shown: "none" without a heartbeat, "?"
// when heartbeat_at cannot be read.
func beatAge(p *model.Pool) string {
	switch {
	case p.HeartbeatAge != nil:
		return model.FormatAge(*p.HeartbeatAge)
	case p.Heartbeat == nil || p.Heartbeat.HeartbeatAtMissing:
		return "none"
	default:
		return "?"
	}
}

// statusMarker is the text of a status: it reads without colour.
func statusMarker(s model.Status) string {
	switch s {
	case model.StatusDead:
		return "DEAD"
	case model.StatusLate:
		return "LATE"
	default:
		return "ok"
	}
}

func statusStyle(s model.Status, st styles) interface{ Render(...string) string } {
	switch s {
	case model.StatusDead:
		return st.dead
	case model.StatusLate:
		return st.warn
	default:
		return st.ok
	}
}

func timeUnix(sec int64) time.Time { return time.Unix(sec, 0) }
