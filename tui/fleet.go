package tui

import (
	"os"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/workq-tui/workq-tui/model"
)

// FleetOptions configure the fleet screen: one row per target, each target
// with the screen of its own.
type FleetOptions struct {
	// Targets are the options of each target's screen, as for New, each
	// with its own reader, interval, actions and audit; Target names it
	// (Address and Namespace when empty). Now and Renderer default to the
	// fleet's.
	Targets []Options
	// ReadOnly marks the fleet's header; each target's own ReadOnly is
	// what hides its writes.
	ReadOnly bool
	// Now is the fleet's clock; time.Now by default.
	Now func() time.Time
	// Renderer builds every style; lipgloss.NewRenderer(os.Stdout) by
	// default.
	Renderer *lipgloss.Renderer
	// Columns are the fleet table's columns, by the names of the
	// configuration file's [columns.fleet], in their order; all when
	// empty.
	Columns []string
}

// Fleet is the root of the fleet screen. It owns one target screen (Model)
// per target and the fleet view's cursor; each target screen keeps owning
// its polling (generation, back-off, interval), its orphan scan, its
// dialog and its running action. Every command of a target comes back as
// a targetMsg and goes to that target only, so a target that is down or
// slow holds up nobody else.
type Fleet struct {
	opts  FleetOptions
	st    styles
	keys  fleetKeyMap
	help  help.Model
	after afterFunc
	// children are the target screens. A screen is never changed through
	// its pointer: an update stores a pointer to the new value in a copy of
	// the slice, so an older Fleet value keeps its screens, and a message
	// copies one screen, not fifty.
	children []*Model
	// sums are the numbers of each target's snapshot; sumsOf is the
	// snapshot they were counted from.
	sums   []snapSums
	sumsOf []*model.Snapshot
	// order is the display order (target indices, worst first) as of the
	// last update; list is the cursor over it; selected is the target
	// under the cursor, which the cursor follows when the order changes.
	order    []int
	list     listState
	selected int
	// open is the target whose screen is shown, or -1 for the fleet view.
	open    int
	started time.Time
	now     time.Time

	width, height int

	status   statusLine
	statusID int
}

// targetMsg is a message of target i's screen, on its way back to it.
type targetMsg struct {
	i   int
	msg tea.Msg
}

// fleetClockMsg redraws the fleet's ages once a second. The target screens'
// own clocks are not re-armed in a fleet: one clock redraws everything.
type fleetClockMsg struct{}

// NewFleet builds the fleet screen.
func NewFleet(o FleetOptions) Fleet {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Renderer == nil {
		o.Renderer = lipgloss.NewRenderer(os.Stdout)
	}
	st := newStyles(o.Renderer, defaultTheme())
	h := help.New()
	h.Styles = st.help
	h.ShortSeparator = "  "
	f := Fleet{
		opts:    o,
		st:      st,
		keys:    defaultFleetKeyMap(),
		help:    h,
		after:   tea.Tick,
		open:    -1,
		started: o.Now(),
		width:   80,
		height:  24,
	}
	f.children = make([]*Model, len(o.Targets))
	f.sums = make([]snapSums, len(o.Targets))
	f.sumsOf = make([]*model.Snapshot, len(o.Targets))
	for i := range o.Targets {
		t := o.Targets[i] // a copy: the defaults below are this screen's
		if t.Now == nil {
			t.Now = o.Now
		}
		if t.Renderer == nil {
			t.Renderer = o.Renderer
		}
		if t.Target == "" {
			t.Target = t.Address + "/" + t.Namespace
		}
		c := New(t)
		c.hidden = true // the fleet view is shown first
		f.children[i] = &c
	}
	return f.withTargetNames().resort()
}

// Init starts every target's screen (each polls at once) and the clock.
func (f Fleet) Init() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(f.children)+1)
	for i, c := range f.children {
		cmds = append(cmds, tagCmd(i, c.Init()))
	}
	return tea.Batch(append(cmds, f.clockCmd())...)
}

func (f Fleet) clockCmd() tea.Cmd {
	return f.after(time.Second, func(time.Time) tea.Msg { return fleetClockMsg{} })
}

// tagCmd wraps a command of target i's screen so that its message comes
// back as a targetMsg for i: a batch stays a batch (each command wrapped,
// so each still runs on its own), and a quit stays a quit.
func tagCmd(i int, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case nil:
			return nil
		case tea.QuitMsg:
			return msg
		case tea.BatchMsg:
			out := make(tea.BatchMsg, 0, len(msg))
			for _, c := range msg {
				if c != nil {
					out = append(out, tagCmd(i, c))
				}
			}
			return out
		default:
			return targetMsg{i: i, msg: msg}
		}
	}
}

// Update routes a target's messages to it, keys to the shown target's
// screen or to the fleet view, and the window size to all.
func (f Fleet) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	f, cmd := f.update(msg)
	return f.resort(), cmd
}

func (f Fleet) update(msg tea.Msg) (Fleet, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.width, f.height = msg.Width, msg.Height
		// A target's screen is drawn under the fleet's one-line bar.
		child := tea.WindowSizeMsg{Width: msg.Width, Height: max(msg.Height-1, 0)}
		f.children = slices.Clone(f.children)
		for i, c := range f.children {
			next, _ := c.update(child)
			next = next.relayout()
			f.children[i] = &next
		}
		return f, nil
	case targetMsg:
		if _, ok := msg.msg.(clockMsg); ok {
			return f, nil // the fleet's clock redraws the target screens
		}
		if s, ok := msg.msg.(switchTargetMsg); ok {
			return f.switchTarget(s.name)
		}
		return f.toChild(msg.i, msg.msg)
	case fleetClockMsg:
		if f.open >= 0 {
			// The screen shown draws its header's ages again.
			next := f.children[f.open].relayout()
			f.children = slices.Clone(f.children)
			f.children[f.open] = &next
		}
		return f, f.clockCmd()
	case statusClearMsg:
		if msg.id == f.statusID {
			f.status = statusLine{}
		}
		return f, nil
	case tea.KeyMsg:
		if f.open >= 0 {
			return f.onChildKey(msg)
		}
		return f.onKeys(msg)
	}
	return f, nil
}

// toChild hands msg to target i's screen and tags what it returns.
func (f Fleet) toChild(i int, msg tea.Msg) (Fleet, tea.Cmd) {
	if i < 0 || i >= len(f.children) {
		return f, nil
	}
	var status tea.Cmd
	if done, ok := msg.(actionDoneMsg); ok && f.open != i {
		f, status = f.announce(i, done)
	}
	next, cmd := f.children[i].Update(msg)
	c := next.(Model)
	f.children = slices.Clone(f.children)
	f.children[i] = &c
	return f, tea.Batch(tagCmd(i, cmd), status)
}

// announce shows the end of a target's action in the fleet's status line
// when the operator has left that target's screen while it ran.
func (f Fleet) announce(i int, done actionDoneMsg) (Fleet, tea.Cmd) {
	c := f.children[i]
	if c.running == nil || c.running.seq != done.seq {
		return f, nil
	}
	text := done.outcome.summary
	isErr := done.outcome.failed || done.err != nil || done.auditErr != nil
	if done.err != nil {
		text = "failed: " + done.err.Error()
	}
	return f.setStatus(c.opts.Target+": "+text, isErr)
}

// setStatus shows a message that clears itself.
func (f Fleet) setStatus(text string, isErr bool) (Fleet, tea.Cmd) {
	f.statusID++
	id := f.statusID
	f.status = statusLine{text: text, isErr: isErr}
	return f, f.after(8*time.Second, func(time.Time) tea.Msg { return statusClearMsg{id: id} })
}

// resort measures the rows again and puts the cursor back on the selected
// target.
func (f Fleet) resort() Fleet {
	f.now = f.opts.Now()
	f.sums = append([]snapSums(nil), f.sums...)
	f.sumsOf = append([]*model.Snapshot(nil), f.sumsOf...)
	for i := range f.children {
		if s := f.children[i].snap; s != nil && f.sumsOf[i] != s {
			f.sums[i], f.sumsOf[i] = sumSnapshot(s), s
		}
	}
	f.order = orderRows(f.rows())
	for pos, i := range f.order {
		if i == f.selected {
			f.list.cursor = pos
			break
		}
	}
	f.list = f.list.clamp(len(f.order), f.listHeight())
	return f
}

// rows are the targets as the fleet view shows them, in target order.
func (f Fleet) rows() []fleetRow {
	rows := make([]fleetRow, len(f.children))
	for i := range f.children {
		rows[i] = f.row(i)
	}
	return rows
}

func (f Fleet) row(i int) fleetRow {
	c := f.children[i]
	state, age := classify(c, f.now, f.started, slowAfter(c.opts.Interval))
	r := fleetRow{index: i, name: oneLine(c.opts.Target), state: state, age: age, hasData: c.snap != nil}
	if c.snap != nil {
		r.sums = f.sums[i]
	}
	if c.scan.completed {
		r.orphans, r.orphansKnown = len(c.orphanList), true
	}
	switch {
	case c.err != nil:
		r.note = oneLine(c.err.Error())
	case state == fleetSlow && c.snap == nil:
		r.note = "no answer for " + model.FormatAge(age)
	case state == fleetSlow:
		r.note = "no new data for " + model.FormatAge(age)
	}
	return r
}

// anyRunning is the first target with an action running, or -1.
func (f Fleet) anyRunning() int {
	for i := range f.children {
		if f.children[i].running != nil {
			return i
		}
	}
	return -1
}
