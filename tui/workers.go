package tui

import (
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/shellword"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// workersView lists the busy workers, longest-running first, with the
// arguments of the selected worker's job below the list; enter opens the
// arguments over the whole body (argsView). A job running longer than
// the snapshot's LongAfter is marked LONG, one whose last check-in is
// older than that STALE (the check-in shows its age), a worker of a dead pool DEAD
// (its observation outlives the pool until it expires). The cursor follows
// a worker ID across polls.
//
// The regular poll reads the workers only while this view is shown (the
// screen asks for them), so the view owns the last workers read: a
// snapshot without them (Workers nil) leaves them as they are, and the
// view then says how old they are.
type workersView struct {
	// cols are the columns shown, by their names (all when empty).
	cols []string
	// km is the key map the view navigates with.
	km keyMap
	// the busy workers, the cursor following a worker ID; height is the
	// list rows, without the column titles.
	table[model.Worker]
	dead      map[string]bool
	longAfter time.Duration
	// read is set once a snapshot brought the workers; readAt is that
	// snapshot's Redis time, latest the Redis time of the last snapshot.
	read           bool
	readAt, latest time.Time
	width          int
	body           int // the body's height
}

func (workersView) title() string { return "Workers" }

func (v workersView) setSnapshot(s *model.Snapshot, _ queueHistory) view {
	v.latest = s.RedisTime
	if s.Workers != nil {
		v.items = model.BusyWorkers(s.Workers)
		v.read, v.readAt = true, s.RedisTime
	}
	v.longAfter = s.LongAfter
	v.dead = map[string]bool{}
	for _, id := range s.DeadPools() {
		v.dead[id] = true
	}
	return v.resize().refilter()
}

// stale reports whether the workers shown are older than the last
// snapshot: read by an earlier poll, before the view was last shown.
func (v workersView) stale() bool { return v.read && !v.readAt.Equal(v.latest) }

// staleAge is how old stale workers are on the screen's clock: the age of
// the last snapshot (now - fetchedAt) plus how much older than it they
// are (Redis's clock, both).
func (v workersView) staleAge(now, fetchedAt time.Time) time.Duration {
	return max(now.Sub(fetchedAt)+v.latest.Sub(v.readAt), 0)
}

func (v workersView) filterText() string { return v.filter }

func (v workersView) setFilter(f string) view {
	v.filter = f
	return v.refilter()
}

// workersArgsMin is the least body height that leaves room for the
// arguments pane under the list.
const workersArgsMin = 12

// argsPaneHeight is the height of the arguments pane (its title included)
// under the list, 0 when the body is too small for one.
func argsPaneHeight(body int) int {
	if body < workersArgsMin {
		return 0
	}
	return body / 3
}

// setSize takes the body: the line saying the workers are old (when they
// are), the column titles, the rows and the arguments pane.
func (v workersView) setSize(w, h int) view {
	v.width, v.body = w, h
	return v.resize()
}

// resize measures the list's rows from the body.
func (v workersView) resize() workersView {
	note := 0
	if v.stale() {
		note = 1
	}
	v.height = max(v.body-1-note-argsPaneHeight(v.body), 1)
	v.list = v.list.clamp(len(v.rows), v.height)
	return v
}

func (v workersView) keys(k keyMap) keyMap {
	_, ok := v.current()
	k.enable(actions.Enter, ok)
	k.setHelp(actions.Enter, "enter", "arguments")
	return k
}

// copyItem is the job id of the worker under the cursor (whose arguments
// enter opens); the actions (reap, requeue, ...) belong to the views of
// pools and job types.
func (v workersView) copyItem() (copyItem, bool) {
	w, ok := v.current()
	if !ok || w.JobID == "" {
		return copyItem{}, false
	}
	return copyItem{what: "job id " + w.JobID, text: []byte(w.JobID), command: append([]string{"find"}, shellword.Operands(w.JobID)...)}, true
}

// refilter recomputes the rows and puts the cursor back on the selected
// worker; when that worker is no longer busy the cursor keeps its
// position.
func (v workersView) refilter() workersView {
	v.table = v.table.refilter(workerMatches, workerKey)
	return v
}

func workerKey(w *model.Worker) string { return w.WorkerID }

func workerMatches(w *model.Worker, f string) bool { return strings.Contains(workerSearchText(w), f) }

func workerSearchText(w *model.Worker) string {
	return strings.ToLower(textsafe.Clean(strings.Join([]string{w.PoolID, w.WorkerID, w.JobName, w.JobID, w.Checkin}, " ")))
}

// update moves the cursor on a navigation key; it reads nothing.
func (v workersView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if w, ok := v.current(); ok && key.Matches(msg, v.km.get(actions.Enter)) {
			return v, pushCmd(func(e openEnv) (view, string) {
				return newArgsView(w, v.readAt, v.latest, e.keys), ""
			})
		}
		return v.navigate(msg, v.km), nil
	case snapshotShown:
		return v.setSnapshot(msg.snap, msg.hist), nil
	}
	return v, nil
}

func (v workersView) navigate(msg tea.KeyMsg, k keyMap) view {
	v.table, _ = v.table.navigate(msg, k, workerKey)
	return v
}

func (v workersView) render(c renderContext) string {
	w, _ := v.current()
	note := ""
	if v.stale() {
		note = c.st.warn.Render(fitLine("workers as of "+model.FormatAge(v.staleAge(c.now, c.fetchedAt))+" ago: reading them again…", v.width)) + "\n"
	}
	list := note + renderWorkers(v.items, v.read, v.readAt, v.rows, v.list, v.dead, v.longAfter, v.width, v.height, v.cols, c.st)
	pane := argsPaneHeight(v.body)
	if pane == 0 {
		return fitBlock(list, v.width, v.body)
	}
	return fitBlock(list+"\n"+renderWorkerArgs(w, 0, v.width, pane, c.st), v.width, v.body)
}

// workerColumnSpecs grow in this order: running, note, job, checkin, then
// the IDs.
var workerColumnSpecs = []colSpec{
	{title: "POOL", min: 8, max: 24, grow: 4, keep: 70},
	{title: "WORKER", min: 8, max: 0, grow: 5, keep: 100},
	{title: "JOB", min: 10, max: 24, grow: 2, keep: 99},
	{title: "RUNNING", min: 7, max: 7, right: true, keep: 98},
	{title: "CHECKIN", min: 10, max: 40, grow: 3, keep: 80},
	{title: "NOTE", min: 9, max: 9, grow: 1, keep: 97},
}

// workerNoteCell is the note's cell, drawn in the dead style.
const workerNoteCell = 5

// workerColumns lays the columns out; the note's column is as wide as
// the widest note (note columns), so that LONG STALE is never the cell cut
// while another column keeps padding.
func workerColumns(width int, names []string, note int) []column {
	specs := slices.Clone(workerColumnSpecs)
	specs[workerNoteCell].min = max(specs[workerNoteCell].min, note)
	specs[workerNoteCell].max = max(specs[workerNoteCell].max, note)
	return layoutColumns(specs, names, width-cursorWidth)
}

// workerRowNote is a worker's note: workerNote, and STALE when its
// check-in is stale.
func workerRowNote(w *model.Worker, dead map[string]bool, readAt time.Time, longAfter time.Duration) string {
	note := workerNote(w, dead, longAfter)
	if staleCheckin(w, readAt, longAfter) {
		note = strings.TrimSpace(note + " STALE")
	}
	return note
}

// workerNote is LONG for a job past longAfter and DEAD for a worker of a
// dead pool.
func workerNote(w *model.Worker, dead map[string]bool, longAfter time.Duration) string {
	var parts []string
	if w.LongRunning(longAfter) {
		parts = append(parts, "LONG")
	}
	if dead[w.PoolID] {
		parts = append(parts, "DEAD")
	}
	return strings.Join(parts, " ")
}

// renderWorkers renders the column titles and the visible rows: exactly
// height+1 lines. read is false until a poll has read the workers.
func renderWorkers(busy []model.Worker, read bool, readAt time.Time, rows []int, l listState, dead map[string]bool, longAfter time.Duration, width, height int, names []string, st styles) string {
	widest := 0
	for _, r := range rows {
		widest = max(widest, textsafe.Width(workerRowNote(&busy[r], dead, readAt, longAfter)))
	}
	cols := workerColumns(width, names, widest)
	titles := titleCells(cols)
	lines := []string{fitLine(st.colHeader.Render(strings.Repeat(" ", cursorWidth)+renderCells(cols, titles)), width)}
	from, to := l.window(len(rows), height)
	for i := from; i < to; i++ {
		w := &busy[rows[i]]
		running := "?"
		if w.Running != nil {
			running = model.FormatAge(*w.Running)
		}
		checkin := checkinCell(w, readAt)
		note := workerRowNote(w, dead, readAt, longAfter)
		for _, c := range cols {
			if c.cell == workerNoteCell && note != "" {
				note = st.dead.Render(fitCell(note, c.width, false))
			}
		}
		row := renderCells(cols, []string{textsafe.Clean(w.PoolID), textsafe.Clean(w.WorkerID), textsafe.Clean(w.JobName), running, checkin, note})
		if i == l.cursor {
			lines = append(lines, fitLine(st.selectRow(row), width))
		} else {
			lines = append(lines, fitLine("  "+row, width))
		}
	}
	if len(rows) == 0 {
		text := "  no busy workers"
		switch {
		case !read:
			text = "  reading workers…"
		case len(busy) > 0:
			text = "  no busy worker matches the filter"
		}
		lines = append(lines, st.faint.Render(text))
	}
	return fitBlock(strings.Join(lines, "\n"), width, height+1)
}

// renderWorkerArgs renders a title naming the job and its arguments,
// pretty-printed and cleaned, from line top: exactly height lines.
func renderWorkerArgs(w model.Worker, top, width, height int, st styles) string {
	if w.WorkerID == "" {
		return fitBlock(st.faint.Render("no worker selected"), width, height)
	}
	title := st.colHeader.Render("ARGUMENTS") + " of " + textsafe.Clean(w.JobName) + " " + textsafe.Clean(w.JobID) +
		st.faint.Render("  (worker "+textsafe.Clean(w.WorkerID)+")")
	lines := workerArgLines(w.Args)
	top = min(max(top, 0), max(len(lines)-(height-1), 0))
	body := lines[top:]
	if len(body) > height-1 && height > 1 {
		body = body[:height-1]
	}
	return fitBlock(title+"\n"+strings.Join(body, "\n"), width, height)
}

// workerArgLines is an observation's args indented by two spaces, one cleaned
// line each; text that is not JSON is one cleaned line.
func workerArgLines(args string) []string {
	if strings.TrimSpace(args) == "" {
		return []string{"(no arguments)"}
	}
	lines, ok := argLines([]byte(args), "  ")
	if !ok {
		return []string{"  " + lines[0] + "  (not JSON)"}
	}
	lines[0] = "  " + lines[0]
	return lines
}

// showsWorkers: the polls read the workers while this view is on show.
func (workersView) showsWorkers() bool { return true }
