package tui

// This file owns the Jobs view: the members of <ns>:retry, <ns>:scheduled
// and <ns>:dead, one page per read, with a set switcher, a job type filter,
// an order toggle, marks, a detail pane and a summary by job type and
// error. Its reads and summary scan are in sets_load.go, its re-reads
// after the polls in sets_reread.go, its own keys in sets_keys.go, the
// plans of R and D in sets_actions.go, the keys the root still routes for
// it in sets_update.go; its drawing in sets_render.go.

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// JobSetReader reads pages of the job sets and their sizes
// (*redisq.Client in the program).
type JobSetReader interface {
	SetPage(ctx context.Context, set model.SetName, f redisq.SetFilter, o redisq.PageOptions, so redisq.ScanOptions) (redisq.SetPage, error)
	SetCounts(ctx context.Context) (redisq.SetCounts, error)
}

// SetScanner starts the summary scans of a job set, of the members a
// filter selects, each on a connection of its own.
type SetScanner interface {
	StartSetScan(ctx context.Context, set model.SetName, f redisq.SetFilter) (SetScan, error)
}

// SetScan is one scan of a set: Step reads one part of it and returns the
// members it found (each once) and how far the scan has got. Close releases
// the connection; the screen calls it exactly once per scan.
type SetScan interface {
	Step(ctx context.Context) ([]model.SetJob, redisq.SetScanProgress, error)
	Close() error
}

// JobsActor plans and executes requeues and deletes of set members
// (reaper.PlanJobs and reaper.JobsExecutor in the program).
type JobsActor interface {
	PlanJobs(ctx context.Context, action reaper.JobsAction, t reaper.JobsTarget) (reaper.JobsPlan, error)
	ExecuteJobs(ctx context.Context, p reaper.JobsPlan, progress reaper.JobsProgress) (reaper.JobsResult, error)
}

// setsPageSize is how many members one read of the Jobs view takes.
const setsPageSize = redisq.DefaultPageLimit

// jobSets is the switcher's order.
var jobSets = [...]model.SetName{model.SetRetry, model.SetScheduled, model.SetDead}

// setsView is the Jobs view. It is a value like every view; it reads its
// pages and its summary itself (sets_load.go), one scan step at a time.
type setsView struct {
	// rd are its reads: a nil sets reads nothing, a nil scan has no
	// summary, a nil follow reads a filtered page again on r only.
	rd setsReads
	// pace is its timeouts, clock and timer.
	pace setsPace
	// queries are the configuration file's saved queries.
	queries savedQueries
	// polls is the last poll the screen brought (snapshotShown): a read
	// started now follows it.
	polls uint64
	// cols are the columns shown, by their names (all when empty).
	cols []string
	// km is the key map the view navigates with.
	km  keyMap
	set model.SetName
	// reverse reads the set against its natural order (oldest death first
	// for dead, latest first for retry and scheduled).
	reverse bool
	// jobFilter is the query the pages are filtered by, as typed, and
	// query the same parsed (nil for none: see sets_query.go); typed is
	// the filter being typed ('/'), applied on enter.
	jobFilter, typed string
	query            *model.Query

	offset int
	page   []model.SetJob
	total  int64
	counts *redisq.SetCounts
	err    error
	// loaded is set after the first read; loading while one runs (loadSeq
	// tags it: an older read's result is dropped).
	loaded, loading bool
	loadSeq         int
	// keep is the member to put the cursor on when the next page arrives
	// (its set, score and bytes), keepIndex the row to fall back to.
	keep      string
	keepIndex int
	// poll is the state of the re-reads that follow the polls
	// (sets_reread.go).
	poll setsFollow

	list   listState
	marked map[string]model.SetJob
	// markAll (A) marks every member the query matches, not only those
	// read: R and D then plan on all of them.
	markAll bool

	redisNow    time.Time
	showSummary bool
	summary     setsSummary
	// pick is the job type under the summary's cursor: enter lists its
	// jobs, R and D take every job of it in the set.
	pick string

	width, height int
	// writes is set when R and D are there (not in read-only mode),
	// edits when e and d are on a job's detail (and the actor edits).
	writes, edits bool
	// detail keeps the lines of the member under the cursor between
	// frames (see detailCache).
	detail *detailCache
}

// setsReads are the Jobs view's reads (Reads.Sets, SetScan, SetFollow).
type setsReads struct {
	sets   JobSetReader
	scan   SetScanner
	follow SetPageFollower
}

// setsPace is how the Jobs view times its reads: a page's timeout, a
// filtered page's (a walk of the set) and a summary step's, the screen's
// clock, its timer and the pause after a summary step (Options).
type setsPace struct {
	fetch, action time.Duration
	now           func() time.Time
	after         afterFunc
	pause         func(step time.Duration) time.Duration
}

// savedQueries are the configuration file's saved queries and the file
// they come from (Options.Queries, QueriesFrom).
type savedQueries struct {
	saved map[string]string
	from  string
}

// showJobsMsg asks the Jobs view to show a set (none: the one it shows)
// and, with filter, to filter it by query: the command line (:jobs,
// :where), a place found and a bucket of the timeline send it once they
// have brought the view on screen.
type showJobsMsg struct {
	set    model.SetName
	query  string
	filter bool
	// typed applies the query typed in the filter line (enter or esc
	// on it), and nothing else.
	typed bool
}

// showsJobs marks the Jobs view among the tabs (jobsShower).
func (setsView) showsJobs() {}

// show takes showJobsMsg: the list (not the summary) of the set asked
// for, filtered when asked; without a set nor a filter, the page shown,
// read first when nothing was.
func (v setsView) show(msg showJobsMsg) (view, tea.Cmd) {
	if msg.typed {
		return v.applyQuery(v.typed)
	}
	if msg.set == "" && !msg.filter {
		if v.loaded || v.loading {
			return v, nil
		}
		return v.load(0, false)
	}
	if msg.set != "" && msg.set != v.set {
		v.set, v.marked = msg.set, nil
	}
	v.showSummary = false
	if msg.filter {
		return v.applyQuery(msg.query)
	}
	return v.load(0, false)
}

// setsSummary is the state of the summary scan of one set.
type setsSummary struct {
	gen uint64
	set model.SetName
	// query is what the summary counts: the members the query in force
	// when it started matches (nil for all), as typed in where.
	query   *model.Query
	where   string
	running bool
	// stepping is set while a step runs (never more than one).
	stepping bool
	done     bool
	sum      *model.SetSummary
	prog     redisq.SetScanProgress
	err      error
}

// newSetsView opens on the dead set, the one an incident is about; writes
// enables R and D.
func newSetsView(writes bool, k keyMap) setsView {
	return setsView{km: k, set: model.SetDead, writes: writes, detail: &detailCache{}}
}

// memberKey names one member: its set, score and bytes.
func memberKey(sj model.SetJob) string {
	return string(sj.Set) + "\x00" + sj.ScoreText + "\x00" + string(sj.Raw)
}

func (setsView) title() string { return "Jobs" }

func (v setsView) setSnapshot(s *model.Snapshot, _ queueHistory) view {
	v.redisNow = s.RedisTime
	if v.counts != nil {
		// The sizes the poll read, as fresh as the header's.
		c := s.Sets
		v.counts = &c
	}
	return v
}

// setSize: one line of the body is the view's title line, one the column
// titles; the detail pane takes the lower part when the body is tall
// enough.
func (v setsView) setSize(w, h int) view {
	v.width, v.height = w, h
	v.list = v.list.clamp(len(v.page), v.listHeight())
	return v
}

// listHeight is the number of member rows shown: the body less the
// view's title line, the column titles and the detail pane.
func (v setsView) listHeight() int {
	rows := v.height - 2
	if v.detailPane() {
		rows -= detailHeight(v.height)
	}
	return max(rows, 1)
}

// detailMinHeight is the least room the detail pane needs below the list.
const detailMinHeight = 8

// detailPane reports whether the detail pane is shown under the list: not
// in the summary, nor where the body is too short (enter pushes the whole
// detail, setjob.go).
func (v setsView) detailPane() bool {
	return !v.showSummary && v.height-2-detailHeight(v.height) >= 3
}

// detailHeight is the pane's height in a body of h lines.
func detailHeight(h int) int { return max(detailMinHeight, (h-2)/2) }

// filterText is the filter being typed or applied: the '/' filter of this
// view is a query, applied on enter.
func (v setsView) filterText() string {
	if v.typed != "" {
		return v.typed
	}
	return v.jobFilter
}

func (v setsView) setFilter(f string) view {
	v.typed = f
	return v
}

// update moves the cursor on a navigation key and takes the results of
// its reads (sets_load.go).
func (v setsView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if v, cmd, ok := v.onKey(msg); ok {
			return v, cmd
		}
		return v.navigate(msg, v.km), nil
	case snapshotShown:
		v.polls = msg.poll
		return v.setSnapshot(msg.snap, msg.hist), nil
	case setsPageMsg:
		return v.onPage(msg)
	case setsScanStepMsg:
		return v.onScanStep(msg)
	case setsScanWakeMsg:
		return v.onScanWake(msg)
	case loadMsg:
		return v.reload()
	case actionDone:
		return v.afterAction(msg.kind)
	case showJobsMsg:
		return v.show(msg)
	}
	return v, nil
}

func (v setsView) navigate(msg tea.KeyMsg, k keyMap) view {
	if v.showSummary {
		return v.navigateSummary(msg, k)
	}
	l, ok := v.list.navigate(msg, k, len(v.page), v.listHeight())
	if ok {
		v.list = l
	}
	return v
}

// copyItem is the member under the cursor.
func (v setsView) copyItem() (copyItem, bool) {
	if j, ok := v.current(); ok {
		return setJobCopy(j), true
	}
	return copyItem{}, false
}

// current is the member under the cursor.
func (v setsView) current() (model.SetJob, bool) {
	if v.list.cursor < 0 || v.list.cursor >= len(v.page) {
		return model.SetJob{}, false
	}
	return v.page[v.list.cursor], true
}

func (v setsView) keys(k keyMap) keyMap {
	_, picked := v.summaryPick()
	k.enable(actions.Enter, len(v.page) > 0 && !v.showSummary || v.showSummary && picked)
	k.enable(actions.NextSet, true)
	k.enable(actions.SetsOrder, !v.showSummary)
	k.enable(actions.Mark, len(v.page) > 0 && !v.showSummary)
	k.enable(actions.MarkAll, v.total > 0 && !v.showSummary)
	k.enable(actions.Summary, true)
	can := v.writes && (!v.showSummary && len(v.page) > 0 || v.showSummary && picked)
	k.enable(actions.SetsRequeue, can)
	k.enable(actions.SetsDelete, can)
	return k
}

// summaryNames are the summary's job types, largest first.
func (v setsView) summaryNames() []model.Count {
	if v.summary.sum == nil {
		return nil
	}
	return model.Sorted(v.summary.sum.ByName)
}

// summaryCursor is the row of the picked job type (the first row when it
// is not there).
func (v setsView) summaryCursor(names []model.Count) int {
	for i, c := range names {
		if c.Key == v.pick {
			return i
		}
	}
	return 0
}

// summaryPick is the job type under the summary's cursor; a member without
// a name cannot be picked (an action on "every job of no name" would be
// one on every job).
func (v setsView) summaryPick() (string, bool) {
	names := v.summaryNames()
	if !v.showSummary || len(names) == 0 {
		return "", false
	}
	name := names[v.summaryCursor(names)].Key
	return name, name != ""
}

// navigateSummary moves the summary's cursor over its job types.
func (v setsView) navigateSummary(msg tea.KeyMsg, k keyMap) setsView {
	names := v.summaryNames()
	l := listState{cursor: v.summaryCursor(names)}
	l, ok := l.navigate(msg, k, len(names), len(names))
	if ok && l.cursor < len(names) {
		v.pick = names[l.cursor].Key
	}
	return v
}

// toggleMark marks or unmarks the member under the cursor and moves down.
func (v setsView) toggleMark() setsView {
	sj, ok := v.current()
	if !ok {
		return v
	}
	marked := make(map[string]model.SetJob, len(v.marked)+1)
	for k, m := range v.marked {
		marked[k] = m
	}
	v.markAll = false
	k := memberKey(sj)
	if _, on := marked[k]; on {
		delete(marked, k)
	} else {
		marked[k] = sj
	}
	v.marked = marked
	v.list = v.list.moveTo(v.list.cursor+1, len(v.page), v.listHeight())
	return v
}

// targets are the members an action takes: the marked ones, else the one
// under the cursor.
func (v setsView) targets() []model.SetJob {
	if len(v.marked) > 0 {
		out := make([]model.SetJob, 0, len(v.marked))
		for _, sj := range v.marked {
			out = append(out, sj)
		}
		sortMembers(out)
		return out
	}
	if sj, ok := v.current(); ok {
		return []model.SetJob{sj}
	}
	return nil
}

// withPage takes a page read and puts the cursor back on the member it
// was on, else on the same row.
func (v setsView) withPage(p redisq.SetPage) setsView {
	v.page, v.total, v.offset = p.Jobs, p.Total, p.Offset
	cursor := v.keepIndex
	for i, sj := range v.page {
		if v.keep != "" && memberKey(sj) == v.keep {
			cursor = i
			break
		}
	}
	v.list = listState{}.moveTo(cursor, len(v.page), v.listHeight())
	v.keep, v.keepIndex = "", 0
	return v
}

// pageOptions is the read of the page at offset.
func (v setsView) pageOptions(offset int) redisq.PageOptions {
	return redisq.PageOptions{Offset: max(offset, 0), Limit: setsPageSize, Reverse: v.reverse}
}

// newestFirst reports the order the pages are in.
func (v setsView) newestFirst() bool { return v.set.NewestFirst() != v.reverse }
