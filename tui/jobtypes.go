package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// historyLen is how many polls the queue-length sparkline remembers.
const historyLen = 40

// queueHistory is each job type's queue length over the recent polls,
// oldest first.
type queueHistory map[string][]int64

// add returns the history with one more sample per job type of the
// snapshot; job types that are gone are forgotten. The receiver is not
// changed.
func (h queueHistory) add(s *model.Snapshot) queueHistory {
	out := make(queueHistory, len(s.JobTypes))
	for _, jt := range s.JobTypes {
		old := h[jt.Name]
		if len(old) >= historyLen {
			old = old[len(old)-historyLen+1:]
		}
		vals := make([]int64, len(old), len(old)+1)
		copy(vals, old)
		out[jt.Name] = append(vals, jt.Queued)
	}
	return out
}

// sparkline draws the last width values, scaled from 0 to the largest.
func sparkline(vals []int64, width int) string {
	if width <= 0 || len(vals) == 0 {
		return ""
	}
	if len(vals) > width {
		vals = vals[len(vals)-width:]
	}
	levels := []rune("▁▂▃▄▅▆▇█")
	var top int64
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if top > 0 && v > 0 {
			i = int((v*int64(len(levels)-1) + top - 1) / top)
		}
		b.WriteRune(levels[min(max(i, 0), len(levels)-1)])
	}
	return b.String()
}

// jobTypesView lists the job types with their queues and locks.
type jobTypesView struct {
	// cols are the columns shown, by their names (all when empty).
	cols []string
	// km is the key map the view navigates with.
	km      keyMap
	history queueHistory
	// snap and orphans (the last scan's) are what blocks is explained
	// from: the mark and reason of each job type held back.
	snap    *model.Snapshot
	orphans []model.InProgressList
	blocks  map[string]jobBlock
	// the job types, the cursor following a name; height is the rows,
	// without the column titles and the reason line.
	table[model.JobType]
	width int
}

func (jobTypesView) title() string { return "Job types" }

func (v jobTypesView) setSnapshot(s *model.Snapshot, h queueHistory) view {
	v.items, v.history, v.snap = s.JobTypes, h, s
	v.blocks = withHealthMarks(jobBlocks(v.snap, v.orphans, v.km), v.snap)
	return v.refilter()
}

func (v jobTypesView) setOrphans(o []model.InProgressList) view {
	v.orphans = o
	v.blocks = withHealthMarks(jobBlocks(v.snap, v.orphans, v.km), v.snap)
	return v
}

func (v jobTypesView) filterText() string { return v.filter }

func (v jobTypesView) setFilter(f string) view {
	v.filter = f
	return v.refilter()
}

// setSize takes the body; one line of it holds the column titles, the
// last the reason of the row under the cursor.
func (v jobTypesView) setSize(w, h int) view {
	v.width, v.table = w, v.resize(max(h-2, 1))
	return v
}

// keys: enter opens the selected job type's queue.
func (v jobTypesView) keys(k keyMap) keyMap {
	_, ok := v.current()
	k.enable(actions.Enter, ok)
	k.setHelp(actions.Enter, "enter", "queue")
	return k
}

func (v jobTypesView) pickedJobType() (model.JobType, bool) { return v.current() }

// selectKey puts the cursor on the job type of that name; the filter is
// cleared only when it hides it.
func (v jobTypesView) selectKey(name string) (view, bool) {
	var ok bool
	v.table, ok = v.table.selectKey(name, v.matches, jobTypeKey)
	return v, ok
}

func (v jobTypesView) refilter() jobTypesView {
	v.table = v.table.refilter(v.matches, jobTypeKey)
	return v
}

func jobTypeKey(jt *model.JobType) string { return jt.Name }

// matches reports whether the filter f finds jt: by its name, or by what
// the view marks it with (drift, why it is blocked, paused, throttled).
func (v jobTypesView) matches(jt *model.JobType, f string) bool {
	text := strings.ToLower(textsafe.Clean(jt.Name))
	if jt.Drift {
		text += " drift"
	}
	if b, ok := v.blocks[jt.Name]; ok {
		text += " " + strings.ToLower(b.mark)
	}
	if jt.Paused {
		text += " paused"
	}
	if jt.Throttled != nil {
		text += " throttled"
	}
	return strings.Contains(text, f)
}

// update moves the cursor on a navigation key; it reads nothing.
func (v jobTypesView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if jt, ok := v.current(); ok && key.Matches(msg, v.km.get(actions.Enter)) {
			return v, pushCmd(func(e openEnv) (view, string) {
				if e.rd.Queue == nil {
					return nil, "queue contents are not available here"
				}
				return openQueue(e, jt.Name), ""
			})
		}
		return v.navigate(msg, v.km), nil
	case snapshotShown:
		return v.setSnapshot(msg.snap, msg.hist), nil
	case orphansFound:
		return v.setOrphans(msg.list), nil
	}
	return v, nil
}

func (v jobTypesView) navigate(msg tea.KeyMsg, k keyMap) view {
	v.table, _ = v.table.navigate(msg, k, jobTypeKey)
	return v
}

func (v jobTypesView) render(c renderContext) string {
	list := renderJobTypes(v.items, v.rows, v.history, v.blocks, v.snap, v.list, v.width, v.height, v.cols, c.st)
	reason := ""
	if jt, ok := v.current(); ok {
		if b, ok := v.blocks[jt.Name]; ok {
			reason = c.st.warn.Render(b.reason)
		} else if jt.Throttled != nil {
			reason = c.st.warn.Render(textsafe.Clean(jt.Throttled.Text()))
		}
	}
	return list + "\n" + fitLine(reason, v.width)
}

// jobTypeColumnSpecs: on a narrow screen the trend and lock_info's count
// go first, then the failure rate, the PAUSED column (WHY says PAUSED too)
// and the in-progress count; the name, the counts and the marks (WHY says
// why a type does not run) stay.
var jobTypeColumnSpecs = []colSpec{
	{title: "JOB", min: 12, max: 30, keep: 100},
	{title: "QUEUED", min: 7, max: 9, right: true, keep: 99},
	{title: "LATENCY", min: 7, max: 7, right: true, keep: 95},
	{title: "FAIL/M", min: 6, max: 6, right: true, keep: 91},
	{title: "INPROG", min: 6, max: 6, right: true, keep: 93},
	{title: "LOCK/MAX", min: 9, max: 11, right: true, keep: 96},
	{title: "LOCKINFO", min: 8, max: 8, right: true, keep: 80},
	{title: "PAUSED", min: 6, max: 6, keep: 92},
	{title: "DRIFT", min: 5, max: 5, keep: 98},
	{title: "WHY", min: 8, max: 8, keep: 94},
	{title: "TREND", min: 8, max: historyLen, keep: 70},
}

// failingKeep is FAIL/M's keep while a job type is failing: just under
// DRIFT's, so that the rate that says how fast jobs die stays on a
// narrow screen. At 60 columns it fits beside WHY (the marks) because
// JOB and LOCK/MAX then give up a column each.
const failingKeep = 97

// jobTypeColumns lays the columns out in width; failing (a job type is
// failing) keeps FAIL/M longer.
func jobTypeColumns(width int, names []string, failing bool) []column {
	specs := jobTypeColumnSpecs
	if failing {
		specs = append([]colSpec(nil), specs...)
		for i := range specs {
			switch specs[i].title {
			case "FAIL/M":
				specs[i].keep = failingKeep
			case "JOB", "LOCK/MAX":
				specs[i].min--
			}
		}
	}
	return layoutColumns(specs, names, width-cursorWidth)
}

// anyFailing reports whether the snapshot's job health finds a type
// failing.
func anyFailing(snap *model.Snapshot) bool {
	if snap == nil || snap.Jobs == nil {
		return false
	}
	for _, p := range snap.Jobs.Problems {
		if p.Kind == model.FindingFailing {
			return true
		}
	}
	return false
}

// renderJobTypes renders the column titles and the visible rows, exactly
// height+1 lines.
// snap gives the failure rates (nil: none).
func renderJobTypes(types []model.JobType, rows []int, h queueHistory, blocks map[string]jobBlock, snap *model.Snapshot, l listState, width, height int, names []string, st styles) string {
	cols := jobTypeColumns(width, names, anyFailing(snap))
	titles := titleCells(cols)
	lines := []string{fitLine(st.colHeader.Render(strings.Repeat(" ", cursorWidth)+renderCells(cols, titles)), width)}
	from, to := l.window(len(rows), height)
	trendWidth := cols[len(cols)-1].width
	for i := from; i < to; i++ {
		jt := &types[rows[i]]
		sel := i == l.cursor
		latency := "-"
		if jt.Latency != nil {
			latency = model.FormatAge(*jt.Latency)
		}
		maxc := "-"
		if jt.MaxConcurrency > 0 {
			maxc = strconv.FormatInt(jt.MaxConcurrency, 10)
		}
		paused, drift := "", ""
		switch {
		case jt.Paused:
			paused = st.warn.Render("PAUSED")
		case jt.Throttled != nil:
			paused = st.warn.Render("THROTTLED")
		}
		if jt.Drift {
			drift = st.dead.Render("DRIFT")
		}
		why := ""
		if b, ok := blocks[jt.Name]; ok {
			why = st.dead.Render(b.mark)
		}
		trend := st.accent.Render(sparkline(h[jt.Name], trendWidth))
		cells := []string{textsafe.Clean(jt.Name), strconv.FormatInt(jt.Queued, 10), latency, failRateCell(snap, jt.Name),
			strconv.FormatInt(jt.InProgress, 10), fmt.Sprintf("%d/%s", jt.Lock, maxc),
			strconv.FormatInt(jt.LockInfoTotal, 10), paused, drift, why, trend}
		row := renderCells(cols, cells)
		if sel {
			lines = append(lines, fitLine(st.selectRow(row), width))
		} else {
			lines = append(lines, fitLine("  "+row, width))
		}
	}
	if len(rows) == 0 {
		lines = append(lines, st.faint.Render("  no job types"))
	}
	return fitBlock(strings.Join(lines, "\n"), width, height+1)
}
