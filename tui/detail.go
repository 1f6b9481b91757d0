package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// detailView is one pool: per job type its in-progress length and
// lock_info entry, then its first in-progress jobs, in a scrollable
// viewport. It is pushed by enter on a pool and follows the pool across
// polls by ID; it reads the jobs itself (peek) when it opens, on r and
// after an action.
type detailView struct {
	// id tells this view's reads from those of an earlier one.
	id        int
	km        keyMap
	peeker    Peeker
	timeout   time.Duration
	poolID    string
	pool      model.Pool
	gone      bool // the pool is no longer in the snapshot (reaped)
	redisTime time.Time

	peekSeq     int
	loading     bool
	unavailable bool
	jobs        []peekedJob
	peekErr     error
	// poll is the state of the re-reads of the jobs that follow the
	// polls (detail_reread.go).
	poll followState

	vp            viewport.Model
	width, height int
}

// newDetail shows pool poolID of s; p reads its jobs (none without it).
func newDetail(id int, poolID string, s *model.Snapshot, k keyMap, p Peeker, timeout time.Duration) detailView {
	d := detailView{id: id, km: k, peeker: p, timeout: timeout, poolID: poolID, vp: viewport.New(0, 0)}
	return d.follow(s)
}

// title follows the tab's name: "Pools › detail".
func (detailView) title() string { return "detail" }

func (d detailView) setSnapshot(s *model.Snapshot, _ queueHistory) view { return d.follow(s) }

func (d detailView) follow(s *model.Snapshot) detailView {
	if s == nil {
		return d
	}
	d.redisTime = s.RedisTime
	if p, ok := s.Pool(d.poolID); ok {
		d.pool, d.gone = *p, false
	} else {
		d.gone = true
	}
	return d.refresh()
}

// pickedPool is the pool shown, unless it is gone: x reaps it, R requeues
// its lists.
func (d detailView) pickedPool() (model.Pool, bool) { return d.current() }

// detailPool is the pool shown: the polls read all its lists.
func (d detailView) detailPool() (model.Pool, bool) { return d.current() }

// keys: nothing to enter or filter here; esc goes back.
func (detailView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, false)
	k.enable(actions.Filter, false)
	k.enable(actions.Back, true)
	return k
}

func (d detailView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotShown:
		return d.setSnapshot(msg.snap, msg.hist), nil
	case loadMsg:
		d.poll.running = false
		return d.startPeek()
	case peekMsg:
		if msg.view != d.id || msg.poolID != d.poolID || msg.seq != d.peekSeq {
			return d, nil // an older peek, or another pool's
		}
		return d.withPeek(msg), nil
	case tea.KeyMsg:
		return d.navigate(msg, d.km), nil
	}
	return d, nil
}

// current is the pool shown, unless it is gone.
func (d detailView) current() (model.Pool, bool) {
	if d.poolID == "" || d.gone {
		return model.Pool{}, false
	}
	return d.pool, true
}

// startPeek reads the pool's first in-progress jobs.
func (d detailView) startPeek() (detailView, tea.Cmd) {
	p, ok := d.current()
	if !ok || d.peeker == nil {
		d.unavailable = d.peeker == nil
		d.loading = false
		return d.refresh(), nil
	}
	d.peekSeq++
	d.loading, d.peekErr = true, nil
	return d.refresh(), peekCmd(d.peeker, p.ID, inProgressJobNames(p), PeekLimit, d.id, d.peekSeq, d.timeout)
}

func (d detailView) setSize(w, h int) view {
	if d.width == w && d.height == h {
		return d
	}
	d.width, d.height = w, h
	d.vp.Width, d.vp.Height = w, h
	return d.refresh()
}

func (d detailView) refresh() detailView {
	if d.poolID == "" {
		return d
	}
	d.vp.SetContent(renderDetail(d, d.width))
	return d
}

func (d detailView) navigate(msg tea.KeyMsg, k keyMap) detailView {
	switch {
	case key.Matches(msg, k.get(actions.Up)):
		d.vp.ScrollUp(1)
	case key.Matches(msg, k.get(actions.Down)):
		d.vp.ScrollDown(1)
	case key.Matches(msg, k.get(actions.PageUp)):
		d.vp.PageUp()
	case key.Matches(msg, k.get(actions.PageDown)):
		d.vp.PageDown()
	case key.Matches(msg, k.get(actions.Top)):
		d.vp.GotoTop()
	case key.Matches(msg, k.get(actions.Bottom)):
		d.vp.GotoBottom()
	}
	return d
}

func (d detailView) render(c renderContext) string {
	if note := olderNote("in-progress jobs", d.poll.readAt, c.fetchedAt, c.now); note != "" {
		return fitBlock(fitLine(c.st.warn.Render(note), d.width)+"\n"+d.vp.View(), d.width, d.height)
	}
	return fitBlock(d.vp.View(), d.width, d.height)
}

// inProgressJobNames are the job types a pool holds jobs of, sorted.
func inProgressJobNames(p model.Pool) []string {
	var names []string
	for n, c := range p.InProgress {
		if c > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// renderDetail is the viewport's content: plain text, every line cut to
// width. Styles are left out so that scrolling never splits a sequence.
func renderDetail(d detailView, width int) string {
	p := d.pool
	var lines []string
	add := func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) }
	add("pool %s  %s", textsafe.Clean(p.ID), statusMarker(p.Status))
	if d.gone {
		add("this pool is no longer in the worker_pools set (reaped or stopped); showing its last known state")
	}
	if hb := p.Heartbeat; hb != nil {
		started := "-"
		if hb.StartedAt > 0 {
			started = model.FormatAge(d.redisTime.Sub(timeUnix(hb.StartedAt))) + " ago"
		}
		add("host %s  pid %d  concurrency %d  heartbeat %s ago  started %s", textsafe.Clean(hb.Host), hb.PID, hb.Concurrency, beatAge(&p), started)
		add("job names: %s", textsafe.Clean(strings.Join(hb.JobNames, ", ")))
		add("workers: %d", len(hb.WorkerIDs))
	} else {
		add("no heartbeat hash: nothing says which host or process this was")
	}
	for _, w := range p.Warnings {
		add("warning: %s", textsafe.Clean(w))
	}
	add("")
	names := map[string]bool{}
	for n := range p.InProgress {
		names[n] = true
	}
	for n := range p.LockInfo {
		names[n] = true
	}
	if p.Heartbeat != nil {
		for _, n := range p.Heartbeat.JobNames {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	cols := fitColumns([]colSpec{{title: "JOB", min: 12, max: 30}, {title: "IN PROGRESS", min: 11, max: 11, right: true}, {title: "LOCK_INFO", min: 9, max: 9, right: true}}, min(width, 74))
	add("%s", renderCells(cols, []string{"JOB", "IN PROGRESS", "LOCK_INFO"}))
	for _, n := range sorted {
		li := "-"
		if v, ok := p.LockInfo[n]; ok {
			li = strconv.FormatInt(v, 10)
		}
		add("%s", renderCells(cols, []string{textsafe.Clean(n), strconv.FormatInt(p.InProgress[n], 10), li}))
	}
	if len(sorted) == 0 {
		add("(no job types)")
	}
	add("")
	switch {
	case d.unavailable:
		add("in-progress jobs: not available")
	case d.loading && len(d.jobs) == 0 && !d.poll.running:
		add("in-progress jobs: loading…")
	default:
		total := p.InProgressTotal()
		add("in-progress jobs: showing %d of %d", len(d.jobs), total)
		if d.peekErr != nil {
			add("could not read them: %s", textsafe.Clean(d.peekErr.Error()))
		}
		for i, j := range d.jobs {
			lines = append(lines, renderJob(i+1, j, d.redisTime)...)
		}
	}
	for i, l := range lines {
		lines[i] = fitLine(l, width)
	}
	return strings.Join(lines, "\n")
}

// renderJob pretty-prints one in-progress job: a title line, then its args
// as indented JSON. A payload that is not a job is shown as it is, cleaned.
func renderJob(n int, j peekedJob, redisTime time.Time) []string {
	job := model.ParseJob(j.payload)
	if job.ParseErr != nil && job.Name == "" && job.ID == "" && len(job.Args) == 0 {
		return []string{
			fmt.Sprintf("#%d %s: not a JSON job", n, textsafe.Clean(j.jobName)),
			"    " + textsafe.Clean(j.payload),
		}
	}
	name := job.Name
	if name == "" {
		name = j.jobName
	}
	enq := "-"
	if job.EnqueuedAt > 0 {
		t := timeUnix(job.EnqueuedAt)
		enq = "at " + t.UTC().Format("2006-01-02 15:04:05Z")
		if !redisTime.IsZero() {
			enq = model.FormatAge(redisTime.Sub(t)) + " ago, " + enq
		}
	}
	out := []string{fmt.Sprintf("#%d %s  id %s  enqueued %s", n, textsafe.Clean(name), textsafe.Clean(job.ID), enq)}
	if job.ParseErr != nil {
		out = append(out, "    "+oneLine(job.ParseErr.Error()))
	}
	if job.Fails > 0 {
		out = append(out, fmt.Sprintf("    failed %s, last: %s", model.Plural(job.Fails, "time", "times"), textsafe.Clean(job.LastErr)))
	}
	args := []string{"{}"}
	if len(job.Args) > 0 && string(job.Args) != "null" {
		args, _ = argLines(job.Args, "    ")
	}
	args[0] = "    args: " + args[0]
	return append(out, args...)
}
