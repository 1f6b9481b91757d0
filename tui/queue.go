package tui

// This file owns the queue view: enter on a job type shows its queue in
// the order the jobs will run, one page per read (pgdn/pgup), with the job
// type's length, latency, pause and lock in a header above it.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// QueueReader reads one page of a job type's queue in run order (position
// 0 runs next) with the queue's length; *redisq.Client in the program.
type QueueReader interface {
	QueuePage(ctx context.Context, job string, offset, limit int) (redisq.QueuePage, error)
}

// QueuePageSize is how many jobs one page of the queue view reads.
const QueuePageSize = redisq.DefaultQueuePage

// queuePageMsg carries a page of the open queue view.
type queuePageMsg struct {
	view int // the queue view that asked
	job  string
	seq  int
	page redisq.QueuePage
	err  error
}

// queuePageCmd reads one page: one call of the reader, never more.
func queuePageCmd(r QueueReader, view int, job string, offset, limit, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		page, err := r.QueuePage(ctx, job, offset, limit)
		return queuePageMsg{view: view, job: job, seq: seq, page: page, err: err}
	}
}

// queueFilterPageCmd reads one page of the jobs q matches: a walk of the
// whole queue, in steps (redisq.FilterQueuePage).
func queueFilterPageCmd(r QueueFilterReader, view int, job string, q *model.Query, offset, limit, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		page, err := r.QueueFilterPage(ctx, job, q, offset, limit)
		return queuePageMsg{view: view, job: job, seq: seq, page: page, err: err}
	}
}

// queueView is one job type's queue, pushed by enter on a job type. It
// follows the job type across polls by name (for its header) and holds the
// last page read; it reads the page again on r and after an action.
type queueView struct {
	// id tells this view's reads from those of an earlier one.
	id        int
	km        keyMap
	reader    QueueReader
	timeout   time.Duration
	job       string
	jt        model.JobType
	gone      bool // the job type is no longer in the snapshot
	redisTime time.Time

	// offset is the run-order position of the page shown or being read.
	offset  int
	seq     int
	loading bool
	loaded  bool
	page    redisq.QueuePage
	err     error
	// poll is the state of the re-reads that follow the polls
	// (queue_reread.go).
	poll followState
	// keep: the page being read again keeps the view on the same job (a
	// refresh, or the end of an action).
	keep bool

	// The query (queue_drain.go): filter reads the jobs it matches (nil:
	// not offered), walking the queue within walkTimeout; where is its
	// text, typing while '/' is open with input; markAll is A's mark.
	filter      QueueFilterReader
	walkTimeout time.Duration
	query       *model.Query
	where       string
	typing      bool
	input       filterInput
	markAll     bool
	// queries and queriesFrom are the saved queries @NAME expands to; now
	// is the screen's clock, for a query's ages before the first poll.
	queries     map[string]string
	queriesFrom string
	now         func() time.Time

	vp            viewport.Model
	width, height int
}

func newQueueView(id int, job string, s *model.Snapshot, k keyMap, r QueueReader, timeout time.Duration) queueView {
	q := queueView{id: id, km: k, reader: r, timeout: timeout, job: job, vp: viewport.New(0, 0)}
	return q.follow(s)
}

// title is empty: the tab stays "Job types".
func (queueView) title() string { return "" }

func (q queueView) setSnapshot(s *model.Snapshot, _ queueHistory) view { return q.follow(s) }

// explainSubject is the job type of the queue: e explains it.
func (q queueView) explainSubject() explainSubject { return explainSubject{job: q.job} }

func (q queueView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotShown:
		return q.setSnapshot(msg.snap, msg.hist), nil
	case loadMsg:
		if q.loaded {
			return q.reload()
		}
		return q.load(q.offset)
	case queuePageMsg:
		return q.setPage(msg), nil
	case actionDone:
		if msg.kind == actionKind(reaper.DrainAuditAction(reaper.DrainDelete)) || msg.kind == actionKind(reaper.DrainAuditAction(reaper.DrainPark)) {
			q.markAll = false // what they marked has changed
		}
		return q, nil
	case tea.KeyMsg:
		if q.takesKey(msg) {
			return q.queryKey(msg)
		}
		k := q.keys(q.km)
		switch {
		case key.Matches(msg, k.get(actions.PageDown)):
			return q.load(q.page.Offset + len(q.page.Jobs))
		case key.Matches(msg, k.get(actions.PageUp)):
			return q.load(max(q.offset-QueuePageSize, 0))
		}
		return q.scroll(msg, k), nil
	}
	return q, nil
}

// load reads the page that starts at offset.
func (q queueView) load(offset int) (queueView, tea.Cmd) {
	q = q.startLoad(offset, q.seq+1)
	q.poll.running, q.keep = false, false
	return q, q.readCmd()
}

// reload reads the page shown again, keeping the view on the same job.
func (q queueView) reload() (queueView, tea.Cmd) {
	q = q.startLoad(q.offset, q.seq+1)
	q.poll.running, q.keep = false, true
	return q, q.readCmd()
}

// readCmd reads the page at q.offset: of the query's jobs when there is
// one.
func (q queueView) readCmd() tea.Cmd {
	if !q.query.Empty() && q.filter != nil {
		return queueFilterPageCmd(q.filter, q.id, q.job, q.query, q.offset, QueuePageSize, q.seq, q.walkTimeout)
	}
	return queuePageCmd(q.reader, q.id, q.job, q.offset, QueuePageSize, q.seq, q.timeout)
}

func (q queueView) follow(s *model.Snapshot) queueView {
	if s == nil {
		return q
	}
	q.redisTime = s.RedisTime
	if jt, ok := s.JobType(q.job); ok {
		q.jt, q.gone = *jt, false
	} else {
		q.gone = true
	}
	return q
}

// startLoad marks the read of the page at offset as running.
func (q queueView) startLoad(offset, seq int) queueView {
	q.offset, q.seq, q.loading, q.err = offset, seq, true, nil
	return q
}

func (q queueView) setPage(msg queuePageMsg) queueView {
	if msg.view != q.id || msg.job != q.job || msg.seq != q.seq {
		return q // an older read, or another queue's
	}
	q.loading = false
	if msg.err != nil {
		q.err = msg.err
		q.poll.running = false
		return q
	}
	if q.poll.running || q.keep && q.loaded {
		q.keep = false
		return q.withReread(msg.page)
	}
	q.page, q.loaded = msg.page, true
	q.poll.readAt = q.poll.last.at
	q.vp.SetContent(renderQueueJobs(q.page, q.job, q.redisTime, q.width))
	q.vp.GotoTop()
	return q
}

// queueHeaderLines is how many lines of the body the header takes.
const queueHeaderLines = 2

func (q queueView) setSize(w, h int) view {
	if q.width == w && q.height == h {
		return q
	}
	q.width, q.height = w, h
	q.vp.Width, q.vp.Height = w, max(h-queueHeaderLines, 1)
	if q.loaded {
		q.vp.SetContent(renderQueueJobs(q.page, q.job, q.redisTime, w))
	}
	return q
}

// hasNext reports whether there is a page after the one shown.
func (q queueView) hasNext() bool {
	return q.loaded && int64(q.page.Offset+len(q.page.Jobs)) < q.page.Length
}

// keys is the key map inside the queue view: pgdn and pgup read pages,
// esc goes back, enter and the filter do nothing.
func (q queueView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, false)
	k.enable(actions.Filter, q.filter != nil)
	k.setHelp(actions.Filter, k.get(actions.Filter).Help().Key, "query")
	k.enable(actions.Back, true)
	k.setHelp(actions.Back, "esc", "job types")
	k.setHelp(actions.PageDown, "pgdn", "next page")
	// A re-read of the page does not hold up the next one.
	idle := !q.loading || q.poll.running
	k.enable(actions.PageDown, q.hasNext() && idle)
	k.setHelp(actions.PageUp, "pgup", "previous page")
	k.enable(actions.PageUp, q.offset > 0 && idle)
	return k
}

func (q queueView) scroll(msg tea.KeyMsg, k keyMap) queueView {
	switch {
	case key.Matches(msg, k.get(actions.Up)):
		q.vp.ScrollUp(1)
	case key.Matches(msg, k.get(actions.Down)):
		q.vp.ScrollDown(1)
	case key.Matches(msg, k.get(actions.Top)):
		q.vp.GotoTop()
	case key.Matches(msg, k.get(actions.Bottom)):
		q.vp.GotoBottom()
	}
	return q
}

// render draws the header and the page: exactly the view's height.
func (q queueView) render(c renderContext) string {
	head := renderQueueHeader(q, q.width, c.st)
	// A query's page does not follow the polls: its line says r reads it
	// again.
	if note := olderNote("queue", q.poll.readAt, c.fetchedAt, c.now); note != "" && q.query.Empty() && !q.typing {
		// The page's line says how old it is, instead of where it is.
		head = head[:strings.LastIndexByte(head, '\n')+1] + fitLine(c.st.warn.Render(note+q.errText()), q.width)
	}
	return fitBlock(head+"\n"+q.vp.View(), q.width, q.height)
}

// renderQueueHeader is the job type's counts and where the page is, two
// lines.
func renderQueueHeader(q queueView, width int, st styles) string {
	jt := q.jt
	latency := "-"
	if jt.Latency != nil {
		latency = model.FormatAge(*jt.Latency)
	}
	maxc := "-"
	if jt.MaxConcurrency > 0 {
		maxc = strconv.FormatInt(jt.MaxConcurrency, 10)
	}
	paused := ""
	if jt.Paused {
		paused = "  " + st.warn.Render("PAUSED")
	}
	line1 := fmt.Sprintf("%s%s  length %d  latency %s  lock/max %d/%s",
		st.bold.Render("queue "+textsafe.Clean(q.job)), paused, jt.Queued, latency, jt.Lock, maxc)
	if q.gone {
		line1 = st.bold.Render("queue "+textsafe.Clean(q.job)) + "  " + st.warn.Render("no longer a job type of the namespace")
	}
	var line2 string
	switch {
	case q.typing:
		line2 = q.input.view(st) + st.faint.Render("  enter: apply  esc: cancel")
	case !q.query.Empty():
		line2 = queueQueryLine(q, st)
	case q.err != nil:
		line2 = st.statusErr.Render("could not read the queue: " + oneLine(q.err.Error()))
	case q.loading && !q.loaded:
		line2 = st.faint.Render("reading the queue…")
	case q.loaded && len(q.page.Jobs) == 0 && q.page.Offset == 0:
		line2 = st.faint.Render("the queue is empty")
	case q.loaded && len(q.page.Jobs) == 0:
		line2 = fmt.Sprintf("nothing at #%d: the queue holds %d now (pgup goes back)", q.page.Offset+1, q.page.Length)
	case q.loaded:
		next := "#1 runs next"
		if jt.Paused {
			next = "paused: none runs until it is unpaused"
		}
		line2 = fmt.Sprintf("jobs #%d–#%d of %d in run order (%s)", q.page.Offset+1, q.page.Offset+len(q.page.Jobs), q.page.Length, next)
		if q.offset > 0 || q.hasNext() {
			line2 += st.faint.Render(" · pgdn/pgup: pages")
		}
		if q.loading && !q.poll.running {
			line2 += st.faint.Render("  reading…")
		}
	}
	return fitLine(line1, width) + "\n" + fitLine(line2, width)
}

// renderQueueJobs is the viewport's content: each job of the page as the
// detail view shows a job (title line, args pretty-printed), numbered by
// its place in run order. Plain text, every line cut to width.
func renderQueueJobs(page redisq.QueuePage, job string, redisTime time.Time, width int) string {
	lines, _ := queueJobLines(page, job, redisTime, width)
	return strings.Join(lines, "\n")
}

// queueJobLines are renderQueueJobs's lines, and the line each job
// starts on.
func queueJobLines(page redisq.QueuePage, job string, redisTime time.Time, width int) (lines []string, starts []int) {
	for _, j := range page.Jobs {
		starts = append(starts, len(lines))
		lines = append(lines, renderJob(int(j.Position)+1, peekedJob{jobName: job, payload: j.Raw}, redisTime)...)
		if r := j.RunsAs; r != nil {
			lines = append(lines, runsAsLines(r)...)
		}
	}
	for i, l := range lines {
		lines[i] = fitLine(l, width)
	}
	return lines, starts
}

// queueQueryLine is the header's second line under a query: how many
// jobs match, the page, the mark.
func queueQueryLine(q queueView, st styles) string {
	where := textsafe.Clean(q.where)
	switch {
	case q.err != nil:
		return st.statusErr.Render("could not read the queue: " + oneLine(q.err.Error()))
	case q.loading && !q.loaded:
		return st.faint.Render("reading the jobs matching " + where + "…")
	}
	var b strings.Builder
	if q.markAll {
		b.WriteString(st.warn.Render(fmt.Sprintf("all %d matching marked", q.page.Length)) + "  ")
	}
	switch {
	case q.page.Length == 0:
		fmt.Fprintf(&b, "no job matches %s", where)
	case len(q.page.Jobs) == 0:
		fmt.Fprintf(&b, "%d match %s; none at #%d", q.page.Length, where, q.page.Offset+1)
	default:
		fmt.Fprintf(&b, "%d–%d of %d matching %s", q.page.Offset+1, q.page.Offset+len(q.page.Jobs), q.page.Length, where)
	}
	if q.loading {
		b.WriteString(st.faint.Render("  reading…"))
	} else {
		b.WriteString(st.faint.Render(" · r reads again"))
	}
	return b.String()
}

// runsAsLines say which job a stand-in of gocraft/work master's or
// gojek/work's EnqueueUniqueByKey runs as: the one its unique key holds
// (a refused enqueue rewrote it), not the stand-in's own arguments.
func runsAsLines(r *model.Job) []string {
	args := "{}"
	if len(r.Args) > 0 && string(r.Args) != "null" {
		args = oneLine(string(r.Args))
	}
	return []string{
		"    runs as id " + textsafe.Clean(r.ID) + ": the job its unique key holds (a refused enqueue by key rewrote it)",
		"      args: " + args,
	}
}
