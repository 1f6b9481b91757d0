package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// View is the fleet view, or the shown target's screen under a one-line
// bar that names the target and says how the rest of the fleet stands.
func (f Fleet) View() string {
	lay := f.layout()
	if f.open >= 0 && f.height >= 2 {
		return f.renderBar() + "\n" + f.children[f.open].View()
	}
	if f.open >= 0 || lay.tooSmall || lay.body < 2+selectedHeight {
		msg := fmt.Sprintf("terminal too small (%dx%d): workq-tui needs 80x24", f.width, f.height)
		return fitBlock(msg, f.width, max(f.height, 1))
	}
	rows := f.rows()
	return f.renderHeader(rows) + "\n" + f.renderBody(rows, lay) + "\n" + f.renderFooter()
}

// fleetHeaderHeight is the fleet header's height: the targets' states, and
// the sums of their data.
const fleetHeaderHeight = 2

// layout is the fleet view's layout; the body holds the column titles, the
// rows and the lines about the selected target.
func (f Fleet) layout() layout {
	return computeLayout(f.width, f.height, fleetHeaderHeight, 1+height(f.helpView()))
}

// listHeight is how many rows the body shows.
func (f Fleet) listHeight() int { return max(f.layout().body-1-selectedHeight, 1) }

// selectedHeight is the lines about the selected target under the table.
const selectedHeight = 2

func (f Fleet) helpView() string {
	f.help.Width = f.width
	return f.help.View(f.keys)
}

// renderBar is the line above a target's screen.
func (f Fleet) renderBar() string {
	c := f.children[f.open]
	seg := []string{f.st.bold.Render("fleet › " + oneLine(c.opts.Target)), f.st.faint.Render("esc: fleet")}
	var others []fleetRow
	for i, r := range f.rows() {
		if i != f.open {
			others = append(others, r)
		}
	}
	if s := f.stateCounts(others, false); s != "" {
		seg = append(seg, "others: "+s)
	}
	return fitLine(strings.Join(seg, "  "), f.width)
}

// stateCounts says how many targets are in each state, worst first, e.g.
// "1 DOWN · 1 SLOW · 3 ok"; withOK false leaves the healthy ones out.
func (f Fleet) stateCounts(rows []fleetRow, withOK bool) string {
	var n [fleetConnecting + 1]int
	for _, r := range rows {
		n[r.state]++
	}
	var parts []string
	for s := fleetDown; s <= fleetConnecting; s++ {
		if n[s] == 0 || (!withOK && s == fleetOK) {
			continue
		}
		text := strconv.Itoa(n[s]) + " " + s.String()
		parts = append(parts, f.stateStyle(s).Render(text))
	}
	return strings.Join(parts, " · ")
}

func (f Fleet) stateStyle(s fleetState) interface{ Render(...string) string } {
	switch s {
	case fleetDown:
		return f.st.dead
	case fleetStale, fleetSlow:
		return f.st.warn
	case fleetOK:
		return f.st.ok
	}
	return f.st.faint
}

// renderHeader sums the fleet: the targets' states, then the numbers of
// the targets that have data.
func (f Fleet) renderHeader(rows []fleetRow) string {
	var seg []string
	if f.opts.ReadOnly {
		seg = append(seg, f.st.badge.Render("[READ-ONLY]"))
	}
	seg = append(seg, f.st.bold.Render("fleet"), plural(len(rows), "target", "targets")+": "+f.stateCounts(rows, true))

	var sum snapSums
	var orphans, withData, scanned int
	var worst *time.Duration
	worstName := ""
	for _, r := range rows {
		if !r.hasData {
			continue
		}
		withData++
		sum.pools += r.sums.pools
		sum.dead += r.sums.dead
		sum.late += r.sums.late
		sum.drift += r.sums.drift
		sum.queued += r.sums.queued
		if r.orphansKnown {
			orphans += r.orphans
			scanned++
		}
		if l := r.sums.worstLatency; l != nil && (worst == nil || *l > *worst) {
			worst, worstName = l, r.name
		}
	}
	if withData < len(rows) {
		seg = append(seg, f.st.warn.Render(fmt.Sprintf("sums over the %d with data", withData)))
	}
	line1 := fitLine(strings.Join(seg, "  "), f.width)
	var counts []string
	counts = append(counts, plural(sum.pools, "pool", "pools"), f.countText(sum.dead, "dead", f.st.dead))
	if sum.late > 0 {
		counts = append(counts, f.st.warn.Render(fmt.Sprintf("%d late", sum.late)))
	}
	if sum.drift > 0 {
		counts = append(counts, f.st.dead.Render(fmt.Sprintf("%d drift", sum.drift)))
	}
	if scanned > 0 && orphans > 0 {
		counts = append(counts, f.st.dead.Render(plural(orphans, "orphan", "orphans")))
	}
	counts = append(counts, fmt.Sprintf("%d queued", sum.queued))
	if worst != nil {
		counts = append(counts, "latency "+model.FormatAge(*worst)+" ("+worstName+")")
	}
	return line1 + "\n" + fitLine(strings.Join(counts, " · "), f.width)
}

func (f Fleet) countText(n int, what string, s interface{ Render(...string) string }) string {
	text := fmt.Sprintf("%d %s", n, what)
	if n > 0 {
		return s.Render(text)
	}
	return text
}

// fleetColumnSpecs: the retry, scheduled and dead job sets and the busy
// workers show "-" while a snapshot does not carry them; keep ranks which
// columns stay on a narrow screen.
var fleetColumnSpecs = []colSpec{
	{title: "TARGET", min: 10, max: 24, keep: 100},
	{title: "STATE", min: 5, max: 5, keep: 99},
	{title: "AGE", min: 6, max: 6, right: true, keep: 98},
	{title: "POOLS", min: 5, max: 5, right: true, keep: 85},
	{title: "DEAD", min: 4, max: 4, right: true, keep: 97},
	{title: "LATE", min: 4, max: 4, right: true, keep: 90},
	{title: "DRIFT", min: 5, max: 5, right: true, keep: 95},
	{title: "ORPH", min: 4, max: 4, right: true, keep: 94},
	{title: "QUEUED", min: 7, max: 9, right: true, keep: 96},
	{title: "LATENCY", min: 7, max: 7, right: true, keep: 93},
	{title: "RETRY", min: 6, max: 7, right: true, keep: 76},
	{title: "SCHED", min: 6, max: 7, right: true, keep: 75},
	{title: "DEADJOBS", min: 8, max: 8, right: true, keep: 74},
	{title: "BUSY", min: 5, max: 5, right: true, keep: 77},
	{title: "NOTE", min: 10, keep: 80},
}

// renderBody is the table (titles and the visible rows, worst first) and
// a line about the selected target, exactly the body's height.
func (f Fleet) renderBody(rows []fleetRow, lay layout) string {
	w, h := lay.width, lay.body
	list := max(h-1-selectedHeight, 1)
	cols := layoutColumns(fleetColumnSpecs, f.opts.Columns, w-cursorWidth)
	titles := titleCells(cols)
	lines := make([]string, 0, h)
	lines = append(lines, fitLine(f.st.colHeader.Render(strings.Repeat(" ", cursorWidth)+renderCells(cols, titles)), w))
	// The state cells are styled once per frame, not once per row.
	var states [fleetConnecting + 1]string
	for _, c := range cols {
		if c.cell == 1 {
			for st := range states {
				states[st] = f.stateStyle(fleetState(st)).Render(fitCell(fleetState(st).String(), c.width, false))
			}
		}
	}
	from, to := f.list.window(len(f.order), list)
	for pos := from; pos < to; pos++ {
		r := rows[f.order[pos]]
		lines = append(lines, f.renderRow(r, cols, states, pos == f.list.cursor, w))
	}
	if len(rows) == 0 {
		lines = append(lines, f.st.faint.Render("  no targets"))
	}
	for len(lines) < h-selectedHeight {
		lines = append(lines, "")
	}
	if len(rows) > 0 {
		lines = append(lines, f.renderSelected(rows[f.selected], w))
	}
	return fitBlock(strings.Join(lines, "\n"), w, h)
}

// renderRow is one target's row; every cell is clean text.
func (f Fleet) renderRow(r fleetRow, cols []column, states [fleetConnecting + 1]string, selected bool, width int) string {
	cells := fleetCells(r)
	for _, c := range cols {
		i := c.cell
		if selected {
			continue
		}
		switch {
		case i == 1:
			cells[i] = states[r.state]
		case (i == 4 || i == 6 || i == 7) && cells[i] != "-" && cells[i] != "0":
			cells[i] = f.st.dead.Render(fitCell(cells[i], c.width, true))
		case i == 5 && cells[i] != "-" && cells[i] != "0":
			cells[i] = f.st.warn.Render(fitCell(cells[i], c.width, true))
		}
	}
	row := renderCells(cols, cells)
	if selected {
		return fitLine(f.st.selectRow(row), width)
	}
	return fitLine("  "+row, width)
}

// fleetCells are a row's cells in the order of fleetColumnSpecs.
func fleetCells(r fleetRow) []string {
	dash := "-"
	num := func(n int) string {
		if !r.hasData {
			return dash
		}
		return strconv.Itoa(n)
	}
	opt := func(p *int64) string {
		if p == nil || !r.hasData {
			return dash
		}
		return strconv.FormatInt(*p, 10)
	}
	age, queued, latency, orphans := dash, dash, dash, dash
	if r.hasData {
		age = model.FormatAge(r.age)
		queued = strconv.FormatInt(r.sums.queued, 10)
		if r.sums.worstLatency != nil {
			latency = model.FormatAge(*r.sums.worstLatency)
		}
	}
	if r.orphansKnown {
		orphans = strconv.Itoa(r.orphans)
	}
	return []string{
		r.name, r.state.String(), age,
		num(r.sums.pools), num(r.sums.dead), num(r.sums.late), num(r.sums.drift), orphans,
		queued, latency,
		opt(r.sums.retry), opt(r.sums.scheduled), opt(r.sums.deadJobs), opt(r.sums.busy),
		r.note,
	}
}

// renderSelected is two lines about the selected target: where it is and,
// when something is wrong with its polling, what.
func (f Fleet) renderSelected(r fleetRow, width int) string {
	c := f.children[r.index]
	where := r.name + ": " + oneLine(c.opts.Address) + " ns " + oneLine(c.opts.Namespace)
	if c.opts.ReadOnly {
		where += " (read-only)"
	}
	where = f.st.faint.Render(fitLine(where, width))
	switch {
	case c.err != nil:
		what := r.state.String()
		if c.inFlight {
			what += ", retrying"
		} else {
			what += ", retry in " + model.FormatAge(max(c.retryAt.Sub(f.now), 0).Round(time.Second))
		}
		return where + "\n" + f.st.statusErr.Render(fitLine(what+": "+r.note, width))
	case r.note != "":
		return where + "\n" + f.st.warn.Render(fitLine(r.state.String()+": "+r.note, width))
	}
	return where + "\n"
}

// renderFooter is the status line and the help.
func (f Fleet) renderFooter() string {
	var status string
	if f.status.text != "" {
		s := f.st.statusInfo
		if f.status.isErr {
			s = f.st.statusErr
		}
		status = s.Render(oneLine(f.status.text))
	} else if i := f.anyRunning(); i >= 0 {
		c := f.children[i]
		status = f.st.faint.Render(oneLine(c.opts.Target) + ": " + c.running.title + "…")
	}
	helpText := f.helpView()
	return fitLine(status, f.width) + "\n" + fitBlock(helpText, f.width, height(helpText))
}
