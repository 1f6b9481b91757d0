package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

func TestMain(m *testing.M) {
	// bubbles' default styles use the global renderer: make it plain too.
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// fixedNow is the screen's frozen clock; the fixture's Redis time is 2s
// before it.
var fixedNow = time.Date(2026, 11, 29, 15, 0, 2, 0, time.UTC)

func asciiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return r
}

// fixture is a small namespace: two dead pools (one without heartbeat),
// one late, two alive; three job types, one drifted, one paused.
func fixture() *model.Snapshot {
	rt := fixedNow.Add(-2 * time.Second)
	hb := func(host string, pid int64, age time.Duration, up time.Duration, jobs ...string) *model.Heartbeat {
		return &model.Heartbeat{HeartbeatAt: rt.Add(-age).Unix(), StartedAt: rt.Add(-up).Unix(), Host: host, PID: pid,
			Concurrency: 10, JobNames: jobs, WorkerIDs: []string{"w1", "w2"}}
	}
	s := &model.Snapshot{
		Namespace: "work",
		RedisTime: rt,
		DeadAfter: model.DefaultDeadAfter,
		Pools: []model.Pool{
			{ID: "6f1a2b3c4d5e6f7a8b9c0d1e", Heartbeat: hb("worker-a", 4242, 65*time.Second, 3*time.Hour, "resize_image", "send_email"),
				InProgress: map[string]int64{"send_email": 3, "resize_image": 1}, LockInfo: map[string]int64{"send_email": 3, "resize_image": 1}},
			{ID: "aaaabbbbccccddddeeeeffff", Heartbeat: nil,
				InProgress: map[string]int64{"send_email": 2}, LockInfo: map[string]int64{"send_email": 2}},
			{ID: "0123456789abcdef01234567", Heartbeat: hb("worker-b\x1b[31m", 77, 8*time.Second, 50*time.Hour, "send_email"),
				InProgress: map[string]int64{"send_email": 1}, LockInfo: map[string]int64{"send_email": 1}},
			{ID: "fedcba9876543210fedcba98", Heartbeat: hb("worker-c", 99, 2*time.Second, 10*time.Minute, "report", "send_email")},
			{ID: "1111222233334444aaaabbbb", Heartbeat: hb("worker-d", 100, 4*time.Second, 26*time.Hour, "report"),
				InProgress: map[string]int64{"report": 2}, LockInfo: map[string]int64{"report": 2}},
		},
		JobTypes: []model.JobType{
			{Name: "report", Queued: 0, Lock: 2, LockInfo: map[string]int64{"1111222233334444aaaabbbb": 2}},
			{Name: "resize_image", Queued: 7, OldestEnqueuedAt: rt.Add(-90 * time.Second).Unix(), Lock: 1, MaxConcurrency: 4, Paused: true,
				LockInfo: map[string]int64{"6f1a2b3c4d5e6f7a8b9c0d1e": 1}},
			{Name: "send_email", Queued: 1234, OldestEnqueuedAt: rt.Add(-45 * time.Second).Unix(), Lock: 9, MaxConcurrency: 10,
				LockInfo: map[string]int64{"6f1a2b3c4d5e6f7a8b9c0d1e": 3, "aaaabbbbccccddddeeeeffff": 2, "0123456789abcdef01234567": 1}},
		},
	}
	// Every worker the heartbeats name, idle, as a snapshot reads them.
	s.Workers = []model.Worker{}
	for _, p := range s.Pools {
		if p.Heartbeat != nil {
			for _, id := range p.Heartbeat.WorkerIDs {
				s.Workers = append(s.Workers, model.Worker{WorkerID: id, PoolID: p.ID})
			}
		}
	}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

// fakeSource returns whatever next says; it counts calls and the largest
// number of calls running at once.
type fakeSource struct {
	mu       sync.Mutex
	next     func(call int) (*model.Snapshot, error)
	calls    int
	running  int
	maxAtOnc int
}

func (f *fakeSource) Snapshot(ctx context.Context) (*model.Snapshot, error) {
	f.mu.Lock()
	f.calls++
	call := f.calls
	f.running++
	f.maxAtOnc = max(f.maxAtOnc, f.running)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.running--; f.mu.Unlock() }()
	return f.next(call)
}

func staticSource(s *model.Snapshot) *fakeSource {
	return &fakeSource{next: func(int) (*model.Snapshot, error) { return s, nil }}
}

type fakePeeker struct{ jobs map[string][]string }

func (f fakePeeker) PeekInProgress(_ context.Context, poolID, job string, n int) ([]string, error) {
	out := f.jobs[poolID+"/"+job]
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// fakeReaper records the plans it executes and reports progress per job.
type fakeReaper struct {
	mu    sync.Mutex
	plans []reaper.Plan
	err   error
	skip  string // PoolID to report as skipped (alive again)
}

func (f *fakeReaper) Reap(_ context.Context, p reaper.Plan, progress reaper.Progress) (reaper.Result, error) {
	f.mu.Lock()
	f.plans = append(f.plans, p)
	f.mu.Unlock()
	var res reaper.Result
	var moved int64
	for _, pp := range p.Pools {
		pr := reaper.PoolResult{PoolID: pp.PoolID, Moved: map[string]int64{}}
		if pp.PoolID == f.skip {
			pr.Skipped = fmt.Sprintf("pool %s is alive again, not reaped", pp.PoolID)
			res.Pools = append(res.Pools, pr)
			continue
		}
		pr.Reaped = true
		for _, j := range pp.Jobs {
			pr.Moved[j.JobName] = j.Jobs
			moved += j.Jobs
			if progress != nil {
				progress(moved, p.TotalJobs())
			}
		}
		res.Pools = append(res.Pools, pr)
	}
	return res, f.err
}

func (f *fakeReaper) executed() []reaper.Plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]reaper.Plan(nil), f.plans...)
}

// scheduled is what a timer command returns in tests: the timer's length
// and the message it would deliver, at once.
type scheduled struct {
	d   time.Duration
	msg tea.Msg
}

func instantAfter(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg { return scheduled{d: d, msg: fn(fixedNow)} }
}

type testDeps struct {
	src    *fakeSource
	reaper *fakeReaper
	audit  *memAudit
}

type memAudit struct {
	mu      sync.Mutex
	entries []audit.Entry
}

func (a *memAudit) Record(e audit.Entry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, e)
	return nil
}

func testOptions(src *fakeSource) (Options, testDeps) {
	d := testDeps{src: src, reaper: &fakeReaper{}, audit: &memAudit{}}
	return Options{
		Address:   "redis.internal:6379",
		Namespace: "work",
		Interval:  time.Hour, // no second poll during a golden test
		Now:       func() time.Time { return fixedNow },
		Renderer:  asciiRenderer(),
		Reads: Reads{Poll: src, Peek: fakePeeker{jobs: map[string][]string{
			"6f1a2b3c4d5e6f7a8b9c0d1e/send_email": {
				`{"name":"send_email","id":"b1c2d3e4f5a6b7c8d9e0f1a2","t":1795964200,"args":{"to":"ops@example.com","template":"welcome"}}`,
				`{"name":"send_email","id":"c1","t":1795964300,"args":{"to":"\u001b[2Jevil"},"fails":2,"err":"smtp timeout"}`,
				"not json \x1b]0;title\x07",
			},
			"6f1a2b3c4d5e6f7a8b9c0d1e/resize_image": {`{"name":"resize_image","id":"r1","t":1795964000,"args":{"w":640,"h":480}}`},
		}}},
		Writes: Writes{Reap: d.reaper},
		Audit:  d.audit,
	}, d
}

// newTest builds a model for Update tests: sized, with instant timers,
// and the first snapshot applied.
func newTest(t *testing.T, o Options, w, h int) Model {
	t.Helper()
	m := newInstant(o)
	m = step(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	for _, msg := range runCmd(m.firstFetch()) {
		m = step(t, m, msg)
	}
	return m
}

// newInstant is New with the tests' timers (instantAfter): a timer's
// command gives its length and message at once.
func newInstant(o Options) Model {
	m := New(o)
	m.after = instantAfter
	return m
}

// step applies one message and returns the model.
func step(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	next, _ := m.Update(msg)
	return dialogRead(next.(Model))
}

// stepCmd applies one message and returns the model and its command.
func stepCmd(m Model, msg tea.Msg) (Model, tea.Cmd) {
	next, cmd := m.Update(msg)
	return dialogRead(next.(Model)), cmd
}

// dialogRead is the screen once a dialog that came on screen has been
// there for DialogReadTime: a test's steps are reads of the terminal far
// apart. The tests of the rule itself call Update.
func dialogRead(m Model) Model {
	if !dialogOpen(m) || m.dialog.clock == 0 {
		return m
	}
	next, _ := m.Update(dialogReadMsg{clock: m.dialog.clock})
	return next.(Model)
}

// runCmd runs a command and flattens batches; timers (scheduled) are
// returned, not delivered.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runCmd(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

var errRefused = errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")

// openPool moves the cursor of the Pools view to pool id and presses
// enter.
func openPool(t *testing.T, m Model, id string) Model {
	t.Helper()
	m = toView(t, m, "Pools")
	m = press(t, m, "g")
	for i := 0; i < 100; i++ {
		if p, ok := m.selectedPool(); ok && p.ID == id {
			return press(t, m, "enter")
		}
		m = press(t, m, "j")
	}
	t.Fatalf("no pool %s in the Pools view", id)
	return m
}

// shown is v given the snapshot s, as the root gives every view.
func shown(v view, s *model.Snapshot) view {
	v, _ = v.update(snapshotShown{snap: s, hist: queueHistory{}})
	return v
}

// found is v given the orphans o, as the root gives every view.
func found(v view, o []model.InProgressList) view {
	v, _ = v.update(orphansFound{list: o})
	return v
}

// pickedJobType is the job type under v's cursor, if v lists job types.
func pickedJobType(v view) (model.JobType, bool) {
	if p, ok := v.(jobTypePicker); ok {
		return p.pickedJobType()
	}
	return model.JobType{}, false
}

// focusedJobType is the job type under the focused view's cursor.
func focusedJobType(m Model) model.JobType {
	jt, _ := pickedJobType(m.focused())
	return jt
}

// enterCmd presses enter and delivers what it opens (a view returns a
// command that asks the root to push a view, or to show a window or a
// place): the model, and the command of the opened view (its first read).
func enterCmd(t *testing.T, m Model) (Model, tea.Cmd) {
	t.Helper()
	m, cmd := stepCmd(m, keyMsg("enter"))
	if cmd == nil {
		return m, nil
	}
	switch msg := cmd().(type) {
	case pushMsg, windowMsg, placeMsg:
		return stepCmd(m, msg)
	default:
		t.Fatalf("enter opened nothing: %T", msg)
	}
	return m, nil
}

// enter presses enter and delivers what it opens (enterCmd).
func enter(t *testing.T, m Model) Model {
	t.Helper()
	m, _ = enterCmd(t, m)
	return m
}

// statusOf is the status line as the screen draws it: the footer's first
// line, drawn at a width that cuts nothing.
func statusOf(m Model) string {
	lines := strings.Split(wideView(m), "\n")
	return strings.TrimSpace(lines[len(lines)-2])
}

// wideView is the screen drawn 400 columns wide (the same height), so
// that no line is cut.
func wideView(m Model) string {
	h := strings.Count(m.View(), "\n") + 1
	wide, _ := m.Update(tea.WindowSizeMsg{Width: 400, Height: h})
	return wide.(Model).View()
}

// dialogOpen reports whether the screen draws a confirm dialog: its keys
// are the footer's help.
func dialogOpen(m Model) bool {
	lines := strings.Split(m.View(), "\n")
	return strings.Contains(lines[len(lines)-1], "n/esc/q cancel")
}

// dialogTitle is the title of the dialog drawn, "" when none: the first
// line inside its border.
func dialogTitle(m Model) string {
	if !dialogOpen(m) {
		return ""
	}
	for _, l := range strings.Split(wideView(m), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "│") {
			return strings.TrimSpace(strings.Trim(t, "│"))
		}
	}
	return ""
}

// actionRunning reports whether the screen draws a running action: its
// progress ("reaping 2 pools…", with a bar of jobs when it counts them)
// where the status line is.
func actionRunning(m Model) bool {
	line := statusOf(m)
	if strings.HasPrefix(line, "planning ") {
		return false
	}
	return strings.HasSuffix(line, "…") || strings.Contains(line, "… [") || strings.Contains(line, "…  esc stops")
}

// footerLines are the lines of the wide screen from its foot up: the
// help first.
func footerLines(m Model) []string {
	lines := strings.Split(wideView(m), "\n")
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return lines
}

// cmdLineOpen reports whether the screen draws the command line: its
// keys are the footer's help.
func cmdLineOpen(m Model) bool {
	help := footerLines(m)[0]
	return strings.Contains(help, "enter run") && strings.Contains(help, "esc close")
}

// cmdLineText is the command line's text as drawn after its ':', ""
// when it is closed; the spaces it ends with are not told from the
// cursor and the padding, so they are cut.
func cmdLineText(m Model) string {
	if !cmdLineOpen(m) {
		return ""
	}
	return strings.TrimRight(strings.TrimPrefix(strings.TrimSpace(footerLines(m)[1]), ":"), " ")
}

// scanRunning reports whether the screen says an orphan scan is running
// ("scanning…" in the header, or in the Orphans view).
func scanRunning(m Model) bool {
	v := wideView(m)
	return strings.Contains(v, "scanning…") && !strings.Contains(v, "summary of")
}

// tabNames are the screen's tabs, as the header names them.
var tabNames = map[string]bool{"Pools": true, "Job types": true, "Orphans": true, "Workers": true, "Jobs": true}

// drawnTabs are the tabs the header draws, in order, and the index of
// the focused one (in brackets), -1 when none is.
func drawnTabs(m Model) (tabs []string, focused int) {
	for _, l := range strings.Split(wideView(m), "\n") {
		if !strings.Contains(l, "[") || !strings.Contains(l, "]") {
			continue
		}
		tabs, focused = nil, -1
		l = strings.NewReplacer("[", "  [", "]", "  ").Replace(l)
		for _, tok := range strings.Split(l, "  ") {
			tok = strings.TrimSpace(tok)
			on := strings.HasPrefix(tok, "[")
			name, _, _ := strings.Cut(strings.TrimPrefix(tok, "["), " › ")
			if !tabNames[name] {
				continue
			}
			if on {
				focused = len(tabs)
			}
			tabs = append(tabs, name)
		}
		if focused >= 0 {
			return tabs, focused
		}
	}
	return nil, -1
}

// tabIndex is the index of the focused tab as drawn.
func tabIndex(m Model) int { _, i := drawnTabs(m); return i }

// tabCount is how many tabs the header draws.
func tabCount(m Model) int { tabs, _ := drawnTabs(m); return len(tabs) }

// drawnPools is the number of pools the header counts ("6 pools"), -1
// when it counts none.
func drawnPools(m Model) int { return drawnCount(m, "pools", "pool") }

// drawnCount is the first number the screen draws before one of words
// ("2 drift"), -1 when it draws none.
func drawnCount(m Model, words ...string) int {
	for _, l := range strings.Split(wideView(m), "\n") {
		f := strings.Fields(l)
		for i := 1; i < len(f); i++ {
			if slices.Contains(words, f[i]) {
				var n int
				if _, err := fmt.Sscanf(f[i-1], "%d", &n); err == nil {
					return n
				}
			}
		}
	}
	return -1
}

// dialogText is the dialog drawn, its lines inside the border joined.
func dialogText(m Model) string {
	var in []string
	for _, l := range strings.Split(wideView(m), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "│") {
			in = append(in, strings.TrimSpace(strings.Trim(t, "│")))
		}
	}
	return strings.Join(in, "\n")
}

// current is msg as the screen's running poll delivers it: of the poll
// generation m is on.
func current(m Model, msg snapshotMsg) snapshotMsg {
	msg.gen = m.gen
	return msg
}

// tickNow is the tick of the poll loop m is on.
func tickNow(m Model) tickMsg { return tickMsg{gen: m.gen} }

// filterEditing is the filter being typed as drawn ("/text" where the
// status is, while the footer offers to keep it), and whether one is.
func filterEditing(m Model) (string, bool) {
	lines := footerLines(m)
	if !strings.Contains(lines[0], "keep filter") || !strings.HasPrefix(strings.TrimSpace(lines[1]), "/") {
		return "", false
	}
	return strings.TrimRight(strings.TrimPrefix(strings.TrimSpace(lines[1]), "/"), " "), true
}

// drawnRow is the first line the wide screen draws with name as a word
// of its own, "" when none.
func drawnRow(m Model, name string) string {
	for _, l := range strings.Split(wideView(m), "\n") {
		if slices.Contains(strings.Fields(l), name) {
			return l
		}
	}
	return ""
}

// drawnCrumb is what the header draws open on the focused tab, after its
// name ("[Pools › explain]"), "" when nothing is open.
func drawnCrumb(m Model) string {
	for _, l := range strings.Split(wideView(m), "\n") {
		for _, part := range strings.Split(l, "[")[1:] {
			inside, _, ok := strings.Cut(part, "]")
			name, crumb, _ := strings.Cut(inside, " › ")
			if ok && tabNames[name] {
				return crumb
			}
		}
	}
	return ""
}

// openDepth is how many views are open on the focused tab: the esc
// presses that bring the header back to the tab alone (a view that takes
// the whole screen draws no tabs).
func openDepth(t *testing.T, m Model) int {
	t.Helper()
	for n := 0; n < 20; n++ {
		if tabIndex(m) >= 0 && drawnCrumb(m) == "" {
			return n
		}
		m = step(t, m, keyMsg("esc"))
	}
	t.Fatal("esc never closed the views open")
	return -1
}

// cursorRow is the row the screen draws the cursor on ("> "), "" when
// none.
func cursorRow(m Model) string {
	for _, l := range strings.Split(wideView(m), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "> ") {
			return l
		}
	}
	return ""
}

// isPoolID reports whether a drawn word is a pool ID as the fixtures
// write them: 24 lower-case hex digits.
func isPoolID(w string) bool {
	return len(w) == 24 && strings.Trim(w, "0123456789abcdef") == ""
}

// cursorPool is the ID of the pool on the row the cursor is drawn on, ""
// when none.
func cursorPool(m Model) string {
	for _, w := range strings.Fields(cursorRow(m)) {
		if isPoolID(w) {
			return w
		}
	}
	return ""
}

// poolRowsDrawn is how many rows with a whole pool ID the wide screen
// draws (its header may take fewer lines than at the screen's width).
func poolRowsDrawn(m Model) int {
	n := 0
	for _, l := range strings.Split(wideView(m), "\n") {
		if slices.ContainsFunc(strings.Fields(l), isPoolID) {
			n++
		}
	}
	return n
}

// manyPoolID is the ID of the i-th pool of manyPools(n), in the order
// the snapshot lists them (model.Analyze sorts them).
func manyPoolID(n, i int) string { return manyPools(n).Pools[i].ID }
