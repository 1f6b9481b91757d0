// Package tui is the screen of workq-tui: a bubbletea program that polls a
// snapshot of a gocraft/work namespace, shows pools and job types, and runs
// repairs (reaps) on confirmation. It takes two dependencies, Reads and
// Writes, plain structs of the small interfaces its views declare, and
// never talks to Redis itself.
package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// Poller is the screen's regular poll. In the program it may read the
// in-progress lists only where jobs can be (redisq's cheap poll), reading
// every list of req.Open and of req.JobTypes, and reads the workers'
// observations only with req.Workers (a snapshot without them has Workers
// nil).
type Poller interface {
	Poll(ctx context.Context, req redisq.PollRequest) (*model.Snapshot, error)
}

// Sweeper reads the whole namespace, every in-progress list included, at a
// pace that leaves Redis to its other clients; the screen's drift comes
// from it.
type Sweeper interface {
	Sweep(ctx context.Context) (*model.Snapshot, error)
}

// Peeker reads the first n jobs (raw payloads, as stored) of one pool's
// in-progress list of one job type.
type Peeker interface {
	PeekInProgress(ctx context.Context, poolID, jobName string, n int) ([]string, error)
}

// Reaper executes a reap plan.
type Reaper interface {
	Reap(ctx context.Context, p reaper.Plan, progress reaper.Progress) (reaper.Result, error)
}

// Requeuer moves the jobs of in-progress lists back to their queues
// (reaper.Reaper in the program).
type Requeuer interface {
	Requeue(ctx context.Context, plan reaper.RequeuePlan, progress reaper.Progress) (reaper.RequeueResult, error)
}

// LockRepairer resets job types' lock and lock_info from the in-progress
// lists (reaper.Reaper in the program).
type LockRepairer interface {
	RepairLocks(ctx context.Context, plan reaper.LockRepairPlan) (reaper.LockRepairResult, error)
}

// Auditor records every executed action; the program gives the screen an
// *audit.File, tests a list in memory.
type Auditor interface {
	Record(e audit.Entry) error
}

// Options configure the screen.
type Options struct {
	// Address is the Redis address as shown: it must never hold a password
	// (redisq.Endpoint.String() is fit).
	Address   string
	Namespace string
	// Target names the target in a fleet (the header, every dialog and
	// audit line say which); empty for a screen of one Redis.
	Target   string
	ReadOnly bool
	Demo     bool

	// Clipboard is where c and C write the OSC 52 sequence that copies
	// (the terminal: the program's output); nil: nothing is copied.
	// CommandPrefix is the program and the connection flags a copied
	// command starts with ("workq-tui" when empty): it must never hold a
	// password.
	Clipboard     io.Writer
	CommandPrefix string

	// Interval is the time between polls (default 2s); FetchTimeout bounds
	// one poll (default 10s); MaxBackoff caps the wait between retries
	// while Redis fails (default 30s); ActionTimeout bounds one action
	// (default 10m); StatusTTL is how long a status message stays (8s).
	Interval      time.Duration
	FetchTimeout  time.Duration
	MaxBackoff    time.Duration
	ActionTimeout time.Duration
	StatusTTL     time.Duration
	// ScanInterval is the time from the end of one orphan scan to the
	// start of the next (default 60s); 'o' scans at once.
	ScanInterval time.Duration
	// ScanPause is the pause after an orphan scan step that took step, so
	// that the scan leaves Redis to the other clients most of the time
	// (the program passes model.ScanPause). Without it the steps of a scan
	// follow each other without a pause.
	ScanPause func(step time.Duration) time.Duration

	// Now is the screen's clock (data age, status timers); time.Now by
	// default. Ages of pools and queues come from Redis's clock instead.
	Now func() time.Time
	// Renderer builds every style. By default a renderer for os.Stdout
	// (it honours NO_COLOR) that draws for a dark background: it never
	// asks the terminal for its background colour, a question that can
	// stall the first frame for seconds on a terminal that does not answer.
	Renderer *lipgloss.Renderer

	// Reads read everything the screen shows (Reads.Poll is required);
	// Writes run its writes (all nil: every write is disabled, as in
	// read-only mode). A nil field is a read or a write that is not here.
	Reads  Reads
	Writes Writes
	// Sweeps, when Reads.Sweep is set, run at start, on r and
	// SweepInterval after the end of the last sweep (default 30s), each
	// within SweepTimeout (default 5m); the drift the screen shows is then
	// the last sweep's alone (the polls are asked for none), and the
	// header says how old it is.
	SweepInterval time.Duration
	SweepTimeout  time.Duration
	// LongAfter is how long a job may run before the screen marks it
	// long-running (LONG in the Workers view, a long_running finding);
	// the snapshot's own (model.DefaultLongAfter) when not positive.
	LongAfter time.Duration
	// Audit records every executed action; optional.
	Audit Auditor

	// Bindings are the keys of the screen's actions, by the names of the
	// configuration file's [keys] (config.Actions); an action it does not
	// name keeps its keys. Columns are the columns each view shows, by
	// the names of [columns.VIEW] (config.ViewColumns), in their order;
	// a view it does not name shows them all. Both come checked.
	Bindings map[string][]string
	Columns  map[string][]string
	// Queries are the saved queries of the configuration file's
	// [queries], by name, for @NAME in / and :where; QueriesFrom is that
	// file's path, for the error of an unknown name.
	Queries     map[string]string
	QueriesFrom string
	// CmdLines are the command line's history from the runs before,
	// oldest first; CmdLineStore, when set, keeps it for the next run
	// after every line run.
	CmdLines     []string
	CmdLineStore LineStore
	// CmdLinesErr says why the history of the runs before could not be
	// read (then it is neither read nor kept); the status line shows it.
	CmdLinesErr string

	// SwitchNamespace lets n, on an empty namespace, end the screen for
	// the program to open it on a namespace the reader's NamespaceFinder
	// found (Model.SwitchTo); the fleet's screens cannot.
	SwitchNamespace bool
}

// PeekLimit is how many in-progress jobs the detail view shows.
const PeekLimit = 20

var errNoSnapshot = errors.New("the source returned no snapshot")

// Model is the root of the screen. It owns the polling, the scan, the
// dialog and the running action; the views own their rows and cursors, and
// it routes keys to the open dialog or the focused view.
type Model struct {
	opts Options
	rd   Reads
	wr   Writes
	// names are the namespace's key names.
	names redisq.Keys
	st    styles
	keys  keyMap
	help  help.Model
	after afterFunc
	lay   layout

	width, height int
	// header and footer are the frame's, rendered by relayout.
	header, footer string

	// Polling. gen is the current generation: a poll result or a tick of an
	// older one is dropped. inFlight is set while a poll runs; there is
	// never more than one.
	gen       uint64
	inFlight  bool
	snap      *model.Snapshot
	counts    snapCounts
	fetchedAt time.Time
	err       error
	failures  int
	retryAt   time.Time
	history   queueHistory
	// polls counts the snapshots the polls brought: the views on screen
	// read again what they list once per poll (reread.go).
	polls uint64
	// pollEvery is the wait between polls: the interval, longer while
	// polls take more than a tenth of it (see slowWait).
	pollEvery time.Duration
	// sweep is the state of the full sweeps; health is what the last read
	// of INFO said (nil before one, or without the offer).
	sweep  sweepState
	health *model.RedisHealth

	// tabs are the views tab cycles through; tab is the focused one.
	// stack holds the views pushed on it (see stack.go), the last on top;
	// views counts the views pushed, to tell their reads apart.
	tabs  []view
	tab   int
	stack []view
	views int
	// hidden is set while a fleet shows its own view over this screen:
	// nothing of it is on show (see showsWorkers).
	hidden bool

	// scan is the orphan scan's state; orphanList is its last result.
	// scanGen tags the running scan's messages; scanStepping is set while
	// one of its steps runs (never more than one).
	scan         scanStatus
	orphanList   []model.InProgressList
	scanGen      uint64
	scanStepping bool

	filtering bool
	filter    filterInput
	cmdline   cmdLine

	dialog    *confirmDialog
	dialogSeq int
	running   *runningAction
	actionSeq int

	status   statusLine
	statusID int

	// ns is the search for other namespaces when this one is empty.
	ns nsState
}

// runningAction is the action in progress: at most one at a time.
type runningAction struct {
	seq          int
	kind         actionKind
	title        string
	moved, total int64
	// stop cancels a stoppable action (stop.go); stopping is set once it
	// was asked to.
	stop     context.CancelFunc
	stopping bool
	// after is the action's after (see action).
	after func(m Model) (Model, tea.Cmd)
}

// statusLine is the message at the bottom; it clears itself.
type statusLine struct {
	text  string
	isErr bool
}

// New builds the screen.
func New(o Options) Model {
	if o.Interval <= 0 {
		o.Interval = 2 * time.Second
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 10 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	o.MaxBackoff = max(o.MaxBackoff, o.Interval)
	if o.ActionTimeout <= 0 {
		o.ActionTimeout = 10 * time.Minute
	}
	if o.StatusTTL <= 0 {
		o.StatusTTL = 8 * time.Second
	}
	if o.ScanInterval <= 0 {
		o.ScanInterval = 60 * time.Second
	}
	if o.SweepInterval <= 0 {
		o.SweepInterval = 30 * time.Second
	}
	if o.SweepTimeout <= 0 {
		o.SweepTimeout = 5 * time.Minute
	}
	if o.ScanPause == nil {
		o.ScanPause = func(time.Duration) time.Duration { return 0 }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Renderer == nil {
		o.Renderer = lipgloss.NewRenderer(os.Stdout)
		o.Renderer.SetHasDarkBackground(true)
	}
	keys := defaultKeyMap().rebind(o.Bindings)
	c := o.Columns
	tabs := []view{poolsView{km: keys, cols: c["pools"]}, jobTypesView{km: keys, cols: c["jobtypes"]},
		orphansView{km: keys, cols: c["orphans"]}, workersView{km: keys, cols: c["workers"]}}
	rd, wr := o.Reads, o.Writes
	if rd.Sets != nil {
		sv := newSetsView(!o.ReadOnly && wr.Jobs != nil, keys)
		sv.cols = c["jobs"]
		sv.rd = setsReads{sets: rd.Sets, scan: rd.SetScan, follow: rd.SetFollow}
		sv.edits = sv.writes && wr.Edit != nil
		sv.queries = savedQueries{saved: o.Queries, from: o.QueriesFrom}
		sv.pace = setsPace{fetch: o.FetchTimeout, action: o.ActionTimeout, now: o.Now, after: tea.Tick, pause: o.ScanPause}
		tabs = append(tabs, sv)
	}
	st := newStyles(o.Renderer, defaultTheme())
	h := help.New()
	h.Styles = st.help
	h.ShortSeparator = "  "
	m := Model{
		inFlight:  true, // Init polls at once
		opts:      o,
		rd:        rd,
		wr:        wr,
		names:     redisq.NewKeys(o.Namespace),
		st:        st,
		keys:      keys,
		help:      h,
		after:     tea.Tick,
		tabs:      tabs,
		history:   queueHistory{},
		cmdline:   cmdLine{history: append([]string(nil), o.CmdLines...)},
		status:    statusLine{text: oneLine(o.CmdLinesErr), isErr: o.CmdLinesErr != ""},
		pollEvery: o.Interval,
		width:     80,
		height:    24,
	}
	if rd.Scan != nil {
		// Init scans at once (see firstScan).
		m.scan = scanStatus{enabled: true, running: true}
		m.scanStepping = true
	}
	if rd.Sweep != nil {
		// Init sweeps at once (see firstSweep).
		m.sweep = sweepState{enabled: true, running: true}
	}
	return m.relayout()
}

// Init takes the first snapshot and starts the first orphan scan at once,
// and starts the clock.
func (m Model) Init() tea.Cmd {
	return tea.Batch(m.firstFetch(), m.firstScan(), m.firstSweep(), healthCmd(m.rd.Health, m.opts.FetchTimeout), m.clockCmd())
}

// firstFetch is Init's poll; Init cannot change the model, so it uses the
// generation New left (0) and marks nothing: the result arrives with gen 0
// and is accepted. See startFetch for the rule.
func (m Model) firstFetch() tea.Cmd {
	return fetchCmd(m.pollFunc(), m.gen, m.opts.FetchTimeout, m.opts.Now)
}

// firstSweep is Init's sweep, with the sweep generation New left (0).
func (m Model) firstSweep() tea.Cmd {
	if !m.sweep.enabled {
		return nil
	}
	return sweepCmd(m.rd.Sweep, m.sweep.gen, m.opts.SweepTimeout, m.opts.Now)
}

func (m Model) clockCmd() tea.Cmd {
	return m.after(time.Second, func(time.Time) tea.Msg { return clockMsg{} })
}
