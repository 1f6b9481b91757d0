package tui

// This file draws the Jobs view: pure functions of the view's state, the
// width, Redis's clock and the styles. Every byte read from Redis goes
// through textsafe.Clean before it is measured or drawn.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

func (v setsView) render(c renderContext) string {
	w := v.width
	var older string
	if !v.showSummary {
		older = olderNote("page", v.poll.readAt, c.fetchedAt, c.now)
	}
	lines := []string{fitLine(v.titleLine(c.st, older), w)}
	body := max(v.height-1, 0)
	switch {
	case v.showSummary:
		lines = append(lines, renderSetSummary(v.summary, v.pick, w, body, c.st))
	default:
		lines = append(lines, v.renderList(c.st))
		if v.detailPane() {
			dh := detailHeight(v.height)
			pane := []string{c.st.faint.Render(strings.Repeat("─", max(w, 0)))}
			if sj, ok := v.current(); ok {
				pane = append(pane, setJobDetail(sj, v.redisNow, w, v.detail)...)
			}
			pane = pane[:min(len(pane), dh)]
			lines = append(lines, fitBlock(strings.Join(pane, "\n"), w, dh))
		}
	}
	return fitBlock(strings.Join(lines, "\n"), w, v.height)
}

// titleLine is the set switcher with the three sizes, the order, the
// filter, the page and the marks; older says how old the page is when
// it is older than the header.
func (v setsView) titleLine(st styles, older string) string {
	var sets []string
	for _, s := range jobSets {
		n := "?"
		if v.counts != nil {
			n = strconv.FormatInt(setCount(*v.counts, s), 10)
		}
		t := string(s) + " " + n
		if s == v.set {
			sets = append(sets, st.tabActive.Render("["+t+"]"))
		} else {
			sets = append(sets, st.tabInactive.Render(" "+t+" "))
		}
	}
	parts := []string{strings.Join(sets, "")}
	// The marks come first: what R and D would take must not be cut.
	switch {
	case v.markAll:
		parts = append(parts, st.warn.Render(v.markAllText()))
	case len(v.marked) > 0:
		parts = append(parts, st.warn.Render(fmt.Sprintf("%d marked", len(v.marked))))
	}
	if t := v.freshText(); t != "" {
		parts = append(parts, st.accent.Render(t))
	}
	if older != "" {
		parts = append(parts, st.warn.Render(older))
	}
	order := orderText(v.set, v.newestFirst())
	parts = append(parts, order)
	if v.jobFilter != "" {
		parts = append(parts, st.accent.Render("where "+textsafe.Clean(v.jobFilter)))
	}
	switch {
	case v.loading:
		parts = append(parts, st.faint.Render("reading…"))
	case v.err != nil:
		parts = append(parts, st.statusErr.Render("error: "+oneLine(v.err.Error())))
	case v.loaded && len(v.page) > 0:
		parts = append(parts, fmt.Sprintf("%d-%d of %d", v.offset+1, v.offset+len(v.page), v.total))
	}
	return strings.Join(parts, "  ")
}

// orderText says the order of a page: by death for dead, by the time
// due for retry and scheduled.
func orderText(set model.SetName, newestFirst bool) string {
	switch {
	case set == model.SetDead && newestFirst:
		return "newest first"
	case set == model.SetDead:
		return "oldest first"
	case newestFirst:
		return "latest first"
	}
	return "soonest first"
}

func setCount(c redisq.SetCounts, s model.SetName) int64 {
	switch s {
	case model.SetRetry:
		return c.Retry
	case model.SetScheduled:
		return c.Scheduled
	}
	return c.Dead
}

// whenTitle is the title of the time column of a set.
func whenTitle(s model.SetName) string {
	switch s {
	case model.SetRetry:
		return "RETRY"
	case model.SetScheduled:
		return "RUNS"
	}
	return "DIED"
}

func setColumns(set model.SetName, width int, names []string) []column {
	return layoutColumns([]colSpec{
		{title: whenTitle(set), name: "when", min: 10, max: 10, keep: 98},
		{title: "JOB", min: 10, max: 20, keep: 99},
		{title: "ID", min: 6, max: 12, keep: 100},
		{title: "FAILS", min: 5, max: 5, right: true, keep: 80},
		{title: "ERROR", min: 10, keep: 90},
	}, names, width-setsMarkWidth)
}

// setsMarkWidth is the cursor and the mark before each row ("> * ").
const setsMarkWidth = 4

// renderList is the column titles and the rows of the page: exactly
// listHeight+1 lines.
func (v setsView) renderList(st styles) string {
	w, h := v.width, v.listHeight()
	cols := setColumns(v.set, w, v.cols)
	titles := titleCells(cols)
	lines := []string{fitLine(st.colHeader.Render(strings.Repeat(" ", setsMarkWidth)+renderCells(cols, titles)), w)}
	from, to := v.list.window(len(v.page), h)
	for i := from; i < to; i++ {
		sj := v.page[i]
		mark := "  "
		// memberKey holds the member's bytes (megabytes, for some): built
		// only when something is marked.
		if v.markAll {
			mark = "* "
		} else if len(v.marked) > 0 {
			if _, on := v.marked[memberKey(sj)]; on {
				mark = "* "
			}
		}
		row := mark + renderCells(cols, setJobCells(sj, v.redisNow))
		if i == v.list.cursor {
			lines = append(lines, fitLine(st.selectRow(row), w))
		} else {
			lines = append(lines, fitLine("  "+row, w))
		}
	}
	if len(v.page) == 0 {
		text := "no jobs in " + string(v.set)
		switch {
		case !v.loaded && v.err == nil:
			text = "reading " + string(v.set) + "…"
		case v.err != nil:
			text = "could not read " + string(v.set) + ": " + oneLine(v.err.Error())
		case v.jobFilter != "":
			text += " matching " + textsafe.Clean(v.jobFilter)
		}
		lines = append(lines, st.faint.Render("  "+text))
	}
	return fitBlock(strings.Join(lines, "\n"), w, h+1)
}

// setJobCells are a member's cells, clean.
func setJobCells(sj model.SetJob, now time.Time) []string {
	when := relTime(sj, now)
	if sj.Job == nil {
		raw, _ := boundedBytes(sj.Raw, cellMaxBytes)
		return []string{when, "(not JSON)", "-", "", textsafe.Clean(raw)}
	}
	j := sj.Job
	fails := ""
	if j.Fails > 0 {
		fails = strconv.FormatInt(j.Fails, 10)
	}
	name, _ := bounded(j.Name, cellMaxBytes)
	id, _ := bounded(j.ID, cellMaxBytes)
	lastErr, _ := bounded(j.LastErr, cellMaxBytes)
	return []string{when, textsafe.Clean(name), textsafe.Clean(id), fails, oneLine(lastErr)}
}

// relTime is a member's score as an age against Redis's clock: "3h05m ago"
// or "in 4m10s"; a score that is not a whole number of seconds is shown
// as stored.
func relTime(sj model.SetJob, now time.Time) string {
	score, err := strconv.ParseFloat(sj.ScoreText, 64)
	secs := score - float64(now.Unix())
	if err != nil || now.IsZero() || math.IsNaN(secs) || math.Abs(secs) > 1e9 {
		// Not a time: as stored.
		return textsafe.Clean(sj.ScoreText)
	}
	d := (time.Duration(secs*float64(time.Second)) - time.Duration(now.Nanosecond())).Truncate(time.Second)
	if d > 0 {
		return "in " + model.FormatAge(d)
	}
	return model.FormatAge(-d) + " ago"
}

// scoreSeconds is a score that is a whole number of seconds.
func scoreSeconds(sj model.SetJob) (int64, bool) {
	n, err := strconv.ParseInt(sj.ScoreText, 10, 64)
	return n, err == nil
}

// unixText is a time field as UTC with its age.
func unixText(sec int64, now time.Time) string {
	if sec == 0 {
		return "-"
	}
	t := time.Unix(sec, 0).UTC()
	s := t.Format("2006-01-02 15:04:05Z")
	if !now.IsZero() {
		if d := now.Sub(t); d >= 0 {
			s += " (" + model.FormatAge(d) + " ago)"
		} else {
			s += " (in " + model.FormatAge(-d) + ")"
		}
	}
	return s
}

// setJobDetail is the detail of one member, one clean line per entry,
// none wider than width: its fields, its error, its arguments pretty
// printed, or its bytes when it is not a job, each cut at detailMaxBytes.
// The lines after the times come from c (see detailCache).
func setJobDetail(sj model.SetJob, now time.Time, width int, c *detailCache) []string {
	if sj.Raw == nil && sj.ScoreText == "" {
		return []string{"  no job selected"}
	}
	var out []string
	add := func(label, text string) { out = append(out, detailField(label, text, width)...) }
	score := sj.ScoreText
	if sec, ok := scoreSeconds(sj); ok {
		score = unixText(sec, now)
	}
	add(sj.Set.ScoreField(), score)
	if sj.Problem != "" {
		add("problem", sj.Problem)
	}
	if j := sj.Job; j != nil {
		add("name", j.Name)
		add("id", j.ID)
		add("t", unixText(j.EnqueuedAt, now))
		if j.Fails > 0 || j.FailedAt > 0 {
			add("fails", strconv.FormatInt(j.Fails, 10))
			add("failed_at", unixText(j.FailedAt, now))
		}
	}
	return append(out, c.tail(sj, width)...)
}

// memberTail is the part of a member's detail that does not depend on the
// clock: its error, unique key and arguments, or its bytes when it is not
// a job.
func memberTail(sj model.SetJob, width int) []string {
	if sj.Job == nil {
		return detailField("raw", string(sj.Raw), width)
	}
	j := sj.Job
	var out []string
	if j.LastErr != "" {
		out = append(out, detailField("err", j.LastErr, width)...)
	}
	if j.Unique || j.UniqueKey != "" {
		u := "yes"
		if j.UniqueKey != "" {
			u = "key " + j.UniqueKey
		}
		out = append(out, detailField("unique", u, width)...)
	}
	if len(j.Args) > detailMaxBytes {
		// Too long to pretty-print on every frame: its first bytes as
		// stored.
		return append(out, detailField("args", string(j.Args), width)...)
	}
	for i, l := range prettyArgs(j.Args) {
		label := ""
		if i == 0 {
			label = "args"
		}
		prefix := fmt.Sprintf("%-9s ", label)
		for k, part := range wrapClean(l, max(width-len(prefix), 10)) {
			if k > 0 {
				part = "  " + part
			}
			out = append(out, prefix+part)
		}
	}
	return out
}

// detailField is one field of a detail, its label before its first line,
// wrapped to width; a field longer than detailMaxBytes is cut, and a last
// line says how much is left out.
func detailField(label, text string, width int) []string {
	text, more := bounded(text, detailMaxBytes)
	prefix := fmt.Sprintf("%-9s ", label)
	var out []string
	for i, l := range wrapClean(text, max(width-len(prefix), 10)) {
		if i > 0 {
			prefix = strings.Repeat(" ", len(prefix))
		}
		out = append(out, prefix+l)
	}
	if more > 0 {
		out = append(out, strings.Repeat(" ", len(prefix))+moreText(more))
	}
	return out
}

func prettyArgs(args json.RawMessage) []string {
	if len(args) == 0 {
		return []string{"(none)"}
	}
	lines, _ := argLines(args, "")
	return lines
}

// wrapClean cleans text and cuts it into lines of at most width columns.
func wrapClean(s string, width int) []string {
	s = textsafe.Clean(s)
	if textsafe.Width(s) <= width {
		return []string{s}
	}
	return strings.Split(ansi.Hardwrap(s, width, true), "\n")
}

// of names what a summary counts: its set, and the query it was of.
func (s setsSummary) of() string {
	if s.where == "" {
		return string(s.set)
	}
	return string(s.set) + " where " + textsafe.Clean(s.where)
}

// renderSetSummary is the summary of a set by job type and by error, with
// the scan's progress and a cursor on the job type pick: exactly height
// lines.
func renderSetSummary(s setsSummary, pick string, width, height int, st styles) string {
	var lines []string
	switch {
	case s.err != nil:
		lines = append(lines, st.statusErr.Render("summary of "+s.of()+" failed: "+oneLine(s.err.Error())))
	case s.sum == nil:
		lines = append(lines, st.faint.Render("no summary yet"))
	case s.running:
		pct := ""
		if s.prog.Size > 0 {
			pct = fmt.Sprintf(" (%d%%)", min(100, s.prog.Seen*100/s.prog.Size))
		}
		text := fmt.Sprintf("summary of %s: scanning… %d of %d members%s, %s",
			s.of(), s.prog.Seen, s.prog.Size, pct, plural(s.prog.Calls, "call", "calls"))
		if s.query != nil {
			text += fmt.Sprintf(", %d matching", s.sum.Members)
		}
		lines = append(lines, st.warn.Render(text))
	default:
		text := fmt.Sprintf("summary of %s: %s", s.of(), plural64(s.sum.Members, "member", "members"))
		if s.sum.NotJobs > 0 {
			text += fmt.Sprintf(", %d not JSON", s.sum.NotJobs)
		}
		lines = append(lines, st.ok.Render(text))
	}
	if s.sum == nil {
		return fitBlock(strings.Join(lines, "\n"), width, height)
	}
	room := max(height-len(lines)-2, 2)
	byName := model.Sorted(s.sum.ByName)
	byErr := model.Sorted(s.sum.ByError)
	nameRows := min(len(byName), max(room/2, room-len(byErr)))
	errRows := min(len(byErr), room-nameRows)

	cursor := 0
	for i, c := range byName {
		if c.Key == pick {
			cursor = i
		}
	}
	l := listState{cursor: cursor}.clamp(len(byName), nameRows)
	from, to := l.window(len(byName), nameRows)
	title := "JOB TYPE (enter lists its jobs)"
	if len(byName) > nameRows {
		title = fmt.Sprintf("JOB TYPE (%d-%d of %d; enter lists its jobs)", from+1, to, len(byName))
	}
	cols := fitColumns([]colSpec{{title: "COUNT", min: 8, max: 8, right: true}, {title: title, min: 10}}, width-2)
	lines = append(lines, st.colHeader.Render("  "+renderCells(cols, []string{cols[0].title, cols[1].title})))
	for i := from; i < to; i++ {
		c := byName[i]
		name := textsafe.Clean(c.Key)
		if c.Key == "" {
			name = "(no name)"
		}
		row := renderCells(cols, []string{strconv.FormatInt(c.N, 10), name})
		if i == l.cursor {
			lines = append(lines, st.selectRow(row))
		} else {
			lines = append(lines, "  "+row)
		}
	}
	ecols := fitColumns([]colSpec{{title: "COUNT", min: 8, max: 8, right: true}, {title: "ERROR (numbers and ids folded)", min: 10}}, width-2)
	lines = append(lines, st.colHeader.Render("  "+renderCells(ecols, []string{ecols[0].title, ecols[1].title})))
	for _, c := range byErr[:errRows] {
		text := oneLine(c.Key)
		if c.Key == "" {
			text = "(no error)"
		}
		lines = append(lines, "  "+renderCells(ecols, []string{strconv.FormatInt(c.N, 10), text}))
	}
	if more := len(byErr) - errRows; more > 0 && errRows > 0 {
		lines[len(lines)-1] = "  " + st.faint.Render(fmt.Sprintf("… %d more errors", more+1))
	}
	return fitBlock(strings.Join(lines, "\n"), width, height)
}
