package tui

// This file owns the Timeline view: T (or :timeline 6h) shows the
// failures of a window per bucket as `workq-tui timeline` counts them
// (deaths, and failures still retrying), a column per bucket, with the
// moments pools started (^) and the last beats of dead pools (x) under
// them; the errors of the bucket under the cursor below. enter on a bucket
// gives the command that lists its jobs. It is pushed, not a tab: it walks
// a window of the dead set when it opens, on r and after an action, never
// on a poll.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// TimelineReader reads the failure timeline of the last since in buckets
// of bucket, by the same code as `workq-tui timeline`; it only reads.
type TimelineReader interface {
	Timeline(ctx context.Context, since, bucket time.Duration) (*model.Timeline, error)
}

// timelineDefaultSince is the window T opens with.
const timelineDefaultSince = 6 * time.Hour

// timelineMaxSince bounds :timeline's window: a week in buckets of at most
// timelineSteps' last.
const timelineMaxSince = 7 * 24 * time.Hour

// timelineColumns is how many buckets a window is cut into at most: with
// the scale they fit 80 columns.
const timelineColumns = 72

// timelineSteps are the bucket lengths a window is drawn in.
var timelineSteps = []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour}

// timelineBucket is the shortest step that cuts since into at most
// timelineColumns buckets.
func timelineBucket(since time.Duration) time.Duration {
	for _, s := range timelineSteps {
		if since/s <= timelineColumns {
			return s
		}
	}
	return timelineSteps[len(timelineSteps)-1]
}

// timeWindow is a bucket as a window of the query language: since from
// and until until, both inclusive (epoch seconds).
type timeWindow struct {
	from, until      int64
	deaths, retrying int
}

// timelineMsg carries a read of the timeline view view.
type timelineMsg struct {
	view, seq int
	tl        *model.Timeline
	err       error
}

func timelineCmd(r TimelineReader, since, bucket time.Duration, view, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		tl, err := r.Timeline(ctx, since, bucket)
		return timelineMsg{view: view, seq: seq, tl: tl, err: err}
	}
}

// noTimeline is why :timeline is not there.
func noTimeline(m Model) string {
	if m.rd.Timeline == nil {
		return "the timeline is not available here"
	}
	return ""
}

// timelineSinces are the windows :timeline completes.
func timelineSinces(Model) []string { return []string{"1h", "6h", "24h", "72h"} }

// timelineCommand is :timeline [SINCE].
func (m Model) timelineCommand(args []string) (Model, tea.Cmd) {
	since := timelineDefaultSince
	if len(args) > 0 {
		d, err := time.ParseDuration(args[0])
		if err != nil || d < 10*time.Minute || d > timelineMaxSince {
			return m.setStatus(fmt.Sprintf("timeline: %q is not a window from 10m to %s (like 6h)", textsafe.Clean(args[0]), shortDuration(timelineMaxSince)), true)
		}
		return m.openTimeline(d, false)
	}
	return m.openTimeline(since, true)
}

// openTimeline pushes the timeline of the last since, or reads it again
// over since when it is on screen. With fit, the first read is fitted to
// where its failures are (model.FitTimeline) and read again so.
func (m Model) openTimeline(since time.Duration, fit bool) (Model, tea.Cmd) {
	return m.pushOrReread(timelineView{id: m.views, km: m.keys, reader: m.rd.Timeline, commands: m.rd.Commands, timeout: m.opts.FetchTimeout,
		since: since, bucket: timelineBucket(since), cursor: -1, fit: fit})
}

// rereads is the timeline on screen (top) set to v's window, when top is
// one: it is read again rather than another pushed over it.
func (v timelineView) rereads(top view) (view, bool) {
	t, ok := top.(timelineView)
	if !ok {
		return nil, false
	}
	t.since, t.bucket, t.fit, t.fitted, t.cursor = v.since, v.bucket, v.fit, false, -1
	return t, true
}

// windowWords are the words after the program's name of the command
// that lists a bucket's jobs: its deaths, or its failures retrying when it
// has no death.
func windowWords(w timeWindow) []string {
	return []string{"jobs", string(w.set()), "--where", w.query()}
}

// windowCommand is the command line that lists a bucket's jobs, with the
// connection flags in force; "" when c cannot say them.
func windowCommand(c CommandLiner, w timeWindow) string {
	if c == nil {
		return ""
	}
	return strings.Join(c.CommandWords(windowWords(w)), " ")
}

// set is the set that holds the bucket's jobs: dead, unless only jobs
// still retrying failed in it.
func (w timeWindow) set() model.SetName {
	if w.deaths == 0 && w.retrying > 0 {
		return model.SetRetry
	}
	return model.SetDead
}

// query selects the bucket's jobs in the query language.
func (w timeWindow) query() string {
	return fmt.Sprintf("since:%s until:%s", time.Unix(w.from, 0).UTC().Format(time.RFC3339), time.Unix(w.until, 0).UTC().Format(time.RFC3339))
}

// windowCommandLines is windowCommand in lines of at most width columns
// where it can be, broken so that it still pastes into a shell (see
// commandLines); none when c cannot say the connection flags.
func windowCommandLines(c CommandLiner, w timeWindow, width int) []string {
	if c == nil {
		return nil
	}
	words := c.CommandWords(windowWords(w))
	pieces := make([]shellPiece, 0, len(words)+1)
	for i, word := range words {
		if i == len(words)-1 {
			pieces = append(pieces, queryPieces(word)...)
			continue
		}
		pieces = append(pieces, shellPiece{text: word})
	}
	return commandLines(pieces, width, "  ", "    ")
}

// windowMsg is enter on a bucket of the timeline: the root shows its jobs
// (showWindow).
type windowMsg struct{ w timeWindow }

// showWindow is enter on a bucket: the Jobs view on the set that holds
// its jobs, filtered to the bucket by the query language, from where they
// can be marked (A) and requeued; without a Jobs view the status line
// gives the command that lists them (the view shows it under the chart).
func (m Model) showWindow(w timeWindow) (Model, tea.Cmd) {
	if w.deaths+w.retrying == 0 {
		return m.setStatus("no failure in this bucket", false)
	}
	if m.setsTab() < 0 {
		cmd := windowCommand(m.rd.Commands, w)
		if cmd == "" {
			return m.setStatus("the Jobs view is not available here", false)
		}
		text := cmd + " lists this bucket's jobs"
		if w.deaths > 0 && w.retrying > 0 {
			text += " (jobs retry for those retrying)"
		}
		return m.setStatus(text, false)
	}
	return m.showJobsView(showJobsMsg{set: w.set(), query: w.query(), filter: true})
}

// timelineView is the chart of one window.
type timelineView struct {
	id            int
	km            keyMap
	reader        TimelineReader
	commands      CommandLiner
	timeout       time.Duration
	since, bucket time.Duration

	loader
	tl *model.Timeline
	// fit: the next read is fitted to its failures and read again;
	// fitted: the window on screen is the fitted one.
	fit, fitted bool
	// cursor is the bucket under the cursor; -1 until the first read
	// puts it on the last one.
	cursor int

	width, height int
}

func (timelineView) title() string { return "timeline" }

func (v timelineView) buckets() []model.TimelineBucket {
	if v.tl == nil {
		return nil
	}
	return v.tl.Buckets
}

// picked is the bucket under the cursor as a window: enter lists its
// jobs.
func (v timelineView) picked() (timeWindow, bool) {
	bs := v.buckets()
	if v.cursor < 0 || v.cursor >= len(bs) {
		return timeWindow{}, false
	}
	b := bs[v.cursor]
	s := int64(v.tl.Bucket / time.Second)
	return timeWindow{from: b.Start, until: b.Start + s - 1, deaths: b.Deaths, retrying: b.Retrying}, true
}

func (v timelineView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case loadMsg:
		v.loader = v.start()
		return v, timelineCmd(v.reader, v.since, v.bucket, v.id, v.seq, v.timeout)
	case timelineMsg:
		var ok bool
		if v.loader, ok = v.take(v.id, msg.view, msg.seq, msg.err); !ok || msg.err != nil {
			return v, nil
		}
		if v.fit {
			v.fit = false
			if since, bucket, ok := model.FitTimeline(msg.tl, v.columns()); ok {
				v.since, v.bucket, v.fitted = since, bucket, true
				v.loader = v.start()
				return v, timelineCmd(v.reader, v.since, v.bucket, v.id, v.seq, v.timeout)
			}
		}
		// The cursor stays on its bucket when the window moved on; on
		// the last one with a failure when that is gone (or on the first
		// read), else on the last.
		at := int64(-1)
		if v.cursor >= 0 && v.cursor < len(v.buckets()) {
			at = v.buckets()[v.cursor].Start
		}
		v.tl = msg.tl
		v.cursor = len(v.buckets()) - 1
		if i := v.tl.LastFailure(); i >= 0 && at < 0 {
			v.cursor = i
		}
		for i, b := range v.buckets() {
			if b.Start == at {
				v.cursor = i
			}
		}
	case tea.KeyMsg:
		if w, ok := v.picked(); ok && key.Matches(msg, v.km.get(actions.Enter)) {
			return v, func() tea.Msg { return windowMsg{w: w} }
		}
		n := len(v.buckets())
		switch {
		case msg.String() == "left" || msg.String() == "h":
			v.cursor--
		case msg.String() == "right" || msg.String() == "l":
			v.cursor++
		default:
			l, _ := listState{cursor: v.cursor}.navigate(msg, v.km, n, timelineColumns/6)
			v.cursor = l.cursor
		}
		v.cursor = max(min(v.cursor, n-1), 0)
	}
	return v, nil
}

// columns is how many buckets the chart shows side by side.
func (v timelineView) columns() int {
	if v.width <= timelineScale {
		return timelineColumns
	}
	return v.width - timelineScale
}

// clock is the layout of a bucket's start: with seconds for buckets
// under a minute.
func (v timelineView) clock() string {
	if v.tl != nil && v.tl.Bucket < time.Minute {
		return "15:04:05"
	}
	return "15:04"
}

func (v timelineView) setSize(w, h int) view {
	v.width, v.height = w, h
	return v
}

// keys: enter lists the bucket's jobs, esc goes back.
func (v timelineView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, len(v.buckets()) > 0)
	k.setHelp(actions.Enter, "enter", "its jobs")
	k.enable(actions.Filter, false)
	k.enable(actions.Back, true)
	k.setHelp(actions.Back, "esc", "back")
	return k
}

// timelineScale is the width of the scale left of the columns.
const timelineScale = 6

func (v timelineView) render(c renderContext) string {
	lines := []string{fitLine(v.statusLine(c.st), v.width)}
	bs := v.buckets()
	if len(bs) == 0 {
		return fitBlock(strings.Join(lines, "\n"), v.width, v.height)
	}
	// The rows under the chart: markers, times, cursor, the bucket's
	// heading; what is left below goes to its errors.
	chartH := max(min(v.height-12, 10), 3)
	cols := max(v.width-timelineScale, 1)
	from := 0
	if len(bs) > cols {
		from = min(max(v.cursor-cols/2, 0), len(bs)-cols)
	}
	to := min(from+cols, len(bs))
	peak := 1
	for _, b := range bs {
		peak = max(peak, b.Deaths+b.Retrying)
	}
	for r := 0; r < chartH; r++ {
		level := chartH - r
		label := ""
		if r == 0 {
			label = fmt.Sprint(peak)
		} else if r == chartH-1 {
			label = "0"
		}
		var row strings.Builder
		for i := from; i < to; i++ {
			cell := barCell(bs[i], peak, chartH, level)
			if i == v.cursor {
				cell = c.st.selected.Render(cell)
			}
			row.WriteString(cell)
		}
		lines = append(lines, fitLine(fmt.Sprintf("%*s │", timelineScale-2, label)+row.String(), v.width))
	}
	marks := v.markers()
	var mrow, trow []rune
	for i := from; i < to; i++ {
		m := ' '
		switch ms := marks[bs[i].Start]; {
		case ms.starts > 0 && ms.beats > 0:
			m = '*'
		case ms.starts > 0:
			m = '^'
		case ms.beats > 0:
			m = 'x'
		}
		mrow = append(mrow, m)
		trow = append(trow, ' ')
	}
	// A time under every twelfth column, where it fits.
	for i := from; i < to; i += 12 {
		t := []rune(time.Unix(bs[i].Start, 0).UTC().Format(v.clock()))
		if i-from+len(t) <= len(trow) {
			copy(trow[i-from:], t)
		}
	}
	cursorRow := strings.Repeat(" ", v.cursor-from) + "▲"
	pad := strings.Repeat(" ", timelineScale)
	lines = append(lines,
		fitLine(pad+string(mrow), v.width),
		fitLine(c.st.faint.Render(pad+string(trow)), v.width),
		fitLine(pad+c.st.accent.Render(cursorRow), v.width))
	lines = append(lines, v.bucketLines(c.st, marks)...)
	return fitBlock(strings.Join(lines, "\n"), v.width, v.height)
}

// barCell is one cell of a bucket's column at level (1 at the bottom):
// '█' deaths, '▒' failures retrying, above them '·' for a bucket with
// any failure too small to show and ' '.
func barCell(b model.TimelineBucket, peak, height, level int) string {
	n := b.Deaths + b.Retrying
	if n == 0 {
		return " "
	}
	filled := max((n*height+peak-1)/peak, 1)
	dead := (b.Deaths*filled + n - 1) / n
	switch {
	case level <= dead:
		return "█"
	case level <= filled:
		return "▒"
	}
	return " "
}

// bucketMarks counts a bucket's markers; lines says what each is, in
// the order of their times.
type bucketMarks struct {
	starts, beats int
	lines         []timedLine
}

type timedLine struct {
	at   int64
	text string
}

// markers are the pool starts and last beats of each bucket, by its
// start.
func (v timelineView) markers() map[int64]bucketMarks {
	out := map[int64]bucketMarks{}
	bs := v.buckets()
	if len(bs) == 0 {
		return out
	}
	s := int64(v.tl.Bucket / time.Second)
	at := func(t int64) int64 { return t - (t-bs[0].Start)%s }
	for _, m := range v.tl.Starts {
		k := at(m.StartedAt)
		bm := out[k]
		bm.starts++
		bm.lines = append(bm.lines, timedLine{m.StartedAt, fmt.Sprintf("^ %s started %s on %s", model.Plural(m.Pools, "pool", "pools"),
			time.Unix(m.StartedAt, 0).UTC().Format("15:04:05"), textsafe.Clean(m.Host))})
		out[k] = bm
	}
	for _, m := range v.tl.LastBeats {
		k := at(m.HeartbeatAt)
		bm := out[k]
		bm.beats++
		bm.lines = append(bm.lines, timedLine{m.HeartbeatAt, fmt.Sprintf("x pool %s on %s last beat %s", textsafe.Clean(model.ShortID(m.PoolID)),
			textsafe.Clean(m.Host), time.Unix(m.HeartbeatAt, 0).UTC().Format("15:04:05"))})
		out[k] = bm
	}
	return out
}

// bucketLines are the bucket under the cursor: its window and counts, its
// markers, its job types and its errors, most first.
func (v timelineView) bucketLines(st styles, marks map[int64]bucketMarks) []string {
	b := v.buckets()[v.cursor]
	start := time.Unix(b.Start, 0).UTC()
	head := fmt.Sprintf("%s–%s UTC: %d dead, %d retrying", start.Format(v.clock()), start.Add(v.tl.Bucket).Format(v.clock()), b.Deaths, b.Retrying)
	if b.Deaths+b.Retrying > 0 {
		head += st.faint.Render(" · enter: its jobs")
	}
	lines := []string{fitLine(st.bold.Render(head), v.width)}
	ms := marks[b.Start].lines
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].at < ms[j].at })
	for _, m := range ms {
		lines = append(lines, fitLine("  "+m.text, v.width))
	}
	if w, ok := v.picked(); ok && b.Deaths+b.Retrying > 0 {
		for _, l := range windowCommandLines(v.commands, w, v.width) {
			lines = append(lines, fitLine(st.faint.Render(l), v.width))
		}
	}
	if jobs := model.Sorted(b.ByJob); len(jobs) > 0 {
		parts := make([]string, len(jobs))
		for i, j := range jobs {
			parts[i] = fmt.Sprintf("%s %d", textsafe.Clean(j.Key), j.N)
		}
		lines = append(lines, fitLine("  jobs: "+strings.Join(parts, ", "), v.width))
	}
	for _, e := range model.Sorted(b.ByError) {
		lines = append(lines, fitLine(fmt.Sprintf("  %5d  %s", e.N, textsafe.Clean(e.Key)), v.width))
	}
	return lines
}

// statusLine says what the window holds, or why it could not be read.
func (v timelineView) statusLine(st styles) string {
	switch {
	case v.err != nil:
		return st.statusErr.Render("could not read the timeline: " + oneLine(v.err.Error()))
	case v.tl == nil:
		return st.faint.Render("reading the timeline…")
	}
	total := 0
	for _, b := range v.tl.Buckets {
		total += b.Deaths + b.Retrying
	}
	text := fmt.Sprintf("%s in %s to %s UTC, %s buckets", model.Plural(total, "failure", "failures"), shortDuration(v.since),
		time.Unix(v.tl.To-1, 0).UTC().Format("15:04"), shortDuration(v.tl.Bucket))
	if v.fitted {
		// Said whole where it fits, in a word where it does not.
		if fit := " (fitted to the failures)"; textsafe.Width(text+fit) <= v.width {
			text += fit
		} else {
			text += " (fitted)"
		}
	}
	if v.loading {
		text += st.faint.Render(" (reading…)")
	}
	return text + st.faint.Render(" · █ dead ▒ retry ^ start x last beat")
}

// shortDuration is d without its zero minutes and seconds: 6h, 5m, 1h30m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
