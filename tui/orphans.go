package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// scanStatus is what the screen knows of the orphan scan: the one running
// (if any) and the last one that finished. The Orphans view and the header
// render it.
type scanStatus struct {
	// enabled is false when the screen has no scanner.
	enabled bool
	running bool
	// steps and keys are the running scan's SCAN calls so far and the
	// distinct in-progress keys they returned.
	steps, keys int
	// completed is set once a scan has finished; doneAt is when (the
	// screen's clock), and lastSteps and lastKeys its totals.
	completed           bool
	doneAt              time.Time
	lastSteps, lastKeys int
	// err is the last scan's error, cleared by the next success.
	err error
}

// orphansView lists the in-progress lists whose pool is not in
// `<ns>:worker_pools`, as the last finished scan found them. The cursor
// follows a key across scans.
type orphansView struct {
	// cols are the columns shown, by their names (all when empty).
	cols []string
	// km is the key map the view navigates with.
	km keyMap
	// the orphans, the cursor following a key; height is the rows,
	// without the scan line and the column titles.
	table[model.InProgressList]
	width int
}

func (orphansView) title() string { return "Orphans" }

func (v orphansView) setOrphans(o []model.InProgressList) view {
	v.items = o
	return v.refilter()
}

func (v orphansView) filterText() string { return v.filter }

func (v orphansView) setFilter(f string) view {
	v.filter = f
	return v.refilter()
}

// setSize takes the body; two lines of it hold the scan line and the
// column titles.
func (v orphansView) setSize(w, h int) view {
	v.width, v.table = w, v.resize(max(h-2, 1))
	return v
}

func (v orphansView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, false)
	return k
}

func (v orphansView) pickedOrphan() (model.InProgressList, bool) { return v.current() }

// refilter recomputes the rows and puts the cursor back on the selected
// key; when that key is gone the cursor keeps its position.
func (v orphansView) refilter() orphansView {
	v.table = v.table.refilter(orphanMatches, orphanKey)
	return v
}

func orphanKey(o *model.InProgressList) string { return o.Key }

func orphanMatches(o *model.InProgressList, f string) bool {
	return strings.Contains(strings.ToLower(textsafe.Clean(o.Key+" "+o.JobName+" "+o.PoolID)), f)
}

// update moves the cursor on a navigation key; it reads nothing.
func (v orphansView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v.navigate(msg, v.km), nil
	case orphansFound:
		return v.setOrphans(msg.list), nil
	}
	return v, nil
}

func (v orphansView) navigate(msg tea.KeyMsg, k keyMap) view {
	v.table, _ = v.table.navigate(msg, k, orphanKey)
	return v
}

func (v orphansView) render(c renderContext) string {
	return renderOrphans(v.items, v.rows, v.list, c.scan, c.now, v.width, v.height, v.cols, c.st)
}

// orphanColumnSpecs grow length first, then the key (it is what requeue
// takes, and it holds the job name and the pool ID), then job and pool.
var orphanColumnSpecs = []colSpec{
	{title: "KEY", min: 20, max: 64, grow: 1, keep: 100},
	{title: "JOB", min: 10, max: 24, grow: 2, keep: 80},
	{title: "POOL", min: 12, max: 0, grow: 3, keep: 70},
	{title: "LENGTH", min: 7, max: 9, right: true, keep: 99},
}

func orphanColumns(width int, names []string) []column {
	return layoutColumns(orphanColumnSpecs, names, width-cursorWidth)
}

// renderScanLine says how far the scan is, or how old its last result is.
func renderScanLine(sc scanStatus, now time.Time, st styles) string {
	if !sc.enabled {
		return st.faint.Render("orphan scan not available")
	}
	var parts []string
	if sc.running {
		parts = append(parts, st.accent.Render(fmt.Sprintf("scanning… %s examined, %s",
			plural(sc.keys, "in-progress key", "in-progress keys"), plural(sc.steps, "step", "steps"))))
	}
	switch {
	case sc.completed:
		parts = append(parts, fmt.Sprintf("last scan %s ago: %s examined in %s",
			model.FormatAge(now.Sub(sc.doneAt)), plural(sc.lastKeys, "in-progress key", "in-progress keys"), plural(sc.lastSteps, "step", "steps")))
	case !sc.running:
		parts = append(parts, "no scan yet")
	}
	if sc.err != nil {
		parts = append(parts, st.statusErr.Render("scan failed: "+oneLine(sc.err.Error())))
	}
	if !sc.running {
		parts = append(parts, st.faint.Render("o scans now"))
	}
	return strings.Join(parts, "  ·  ")
}

// renderOrphans renders the scan line, the column titles and the visible
// rows: exactly height+2 lines.
func renderOrphans(orphans []model.InProgressList, rows []int, l listState, sc scanStatus, now time.Time, width, height int, names []string, st styles) string {
	cols := orphanColumns(width, names)
	titles := titleCells(cols)
	lines := []string{
		fitLine(renderScanLine(sc, now, st), width),
		fitLine(st.colHeader.Render(strings.Repeat(" ", cursorWidth)+renderCells(cols, titles)), width),
	}
	from, to := l.window(len(rows), height)
	for i := from; i < to; i++ {
		o := &orphans[rows[i]]
		cells := []string{textsafe.Clean(o.Key), textsafe.Clean(o.JobName), textsafe.Clean(o.PoolID), strconv.FormatInt(o.Length, 10)}
		row := renderCells(cols, cells)
		if i == l.cursor {
			lines = append(lines, fitLine(st.selectRow(row), width))
		} else {
			lines = append(lines, fitLine("  "+row, width))
		}
	}
	if len(rows) == 0 {
		text := "  no orphaned in-progress lists"
		switch {
		case len(orphans) > 0:
			text = "  no orphan matches the filter"
		case !sc.completed:
			text = "  no scan has finished yet"
		}
		lines = append(lines, st.faint.Render(text))
	}
	return fitBlock(strings.Join(lines, "\n"), width, height+2)
}
