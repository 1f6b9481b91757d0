package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// fakeClock is the screen's clock in scan tests: a scan step moves it on.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeScanner hands out scans of a fixed number of steps; step i takes
// took[i % len(took)] on the fake clock.
type fakeScanner struct {
	mu       sync.Mutex
	clock    *fakeClock
	steps    int
	took     []time.Duration
	orphans  []model.InProgressList
	stepErr  error
	started  int
	closed   int
	stepRuns int
}

func (f *fakeScanner) StartScan(context.Context) (OrphanScan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started++
	return &fakeScan{f: f}, nil
}

func (f *fakeScanner) counts() (started, closed, steps int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started, f.closed, f.stepRuns
}

type fakeScan struct {
	f *fakeScanner
	n int
}

func (s *fakeScan) Step(context.Context) (ScanProgress, error) {
	f := s.f
	f.mu.Lock()
	f.stepRuns++
	took := time.Millisecond
	if len(f.took) > 0 {
		took = f.took[s.n%len(f.took)]
	}
	err := f.stepErr
	f.mu.Unlock()
	if f.clock != nil {
		f.clock.advance(took)
	}
	if err != nil {
		return ScanProgress{}, err
	}
	s.n++
	return ScanProgress{Steps: s.n, Keys: 10 * s.n, Done: s.n >= f.steps}, nil
}

func (s *fakeScan) Finish(context.Context) ([]model.InProgressList, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	return append([]model.InProgressList(nil), s.f.orphans...), nil
}

func (s *fakeScan) Close() error {
	s.f.mu.Lock()
	s.f.closed++
	s.f.mu.Unlock()
	return nil
}

// fixtureOrphan is an orphan of the fixture's namespace.
var fixtureOrphan = model.InProgressList{Key: "work:jobs:send_email:deadbeefdeadbeefdeadbeef:inprogress", JobName: "send_email", PoolID: "deadbeefdeadbeefdeadbeef", Length: 5}

// testScanPace is the tests' pause after a scan step, per time it took.
const testScanPace = 3

func scanOptions(steps int) (Options, testDeps, *fakeScanner) {
	o, d := testOptions(staticSource(fixture()))
	sc := &fakeScanner{steps: steps, orphans: []model.InProgressList{fixtureOrphan}}
	o.Reads.Scan = sc
	o.ScanInterval = time.Minute
	o.ScanPause = func(step time.Duration) time.Duration { return testScanPace * step }
	return o, d, sc
}

// runScan delivers the messages of cmd like deliver, and ends every pause
// between two scan steps at once; paces are the pauses asked for, timers
// the other timers.
func runScan(t *testing.T, m Model, cmd tea.Cmd) (_ Model, paces []time.Duration, timers []scheduled) {
	t.Helper()
	queue := runCmd(cmd)
	for i := 0; i < 1000 && len(queue) > 0; i++ {
		msg := queue[0]
		queue = queue[1:]
		if s, ok := msg.(scheduled); ok {
			if _, wake := s.msg.(scanWakeMsg); wake {
				paces = append(paces, s.d)
				queue = append(queue, s.msg)
				continue
			}
			timers = append(timers, s)
			continue
		}
		var next tea.Cmd
		m, next = stepCmd(m, msg)
		queue = append(queue, runCmd(next)...)
	}
	return m, paces, timers
}

// newScanTest is newTest with the first scan run to its end.
func newScanTest(t *testing.T, o Options, w, h int) Model {
	t.Helper()
	m := newTest(t, o, w, h)
	m, _, _ = runScan(t, m, m.firstScan())
	if v := orphansScreen(t, m); scanRunning(m) || !strings.Contains(v, "last scan") {
		t.Fatalf("first scan did not finish:\n%s", v)
	}
	return m
}

// orphansScreen is the Orphans tab as drawn: its scan line and rows.
func orphansScreen(t *testing.T, m Model) string {
	t.Helper()
	return wideView(toView(t, m, "Orphans"))
}

func TestScanRunsAtStartFillsOrphansAndArmsTheInterval(t *testing.T) {
	o, _, sc := scanOptions(3)
	m := newInstant(o)
	if !scanRunning(m) {
		t.Fatal("New must count Init's scan as running")
	}
	m = step(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	for _, msg := range runCmd(m.firstFetch()) {
		m = step(t, m, msg)
	}
	m, paces, timers := runScan(t, m, m.firstScan())
	if len(paces) != 2 {
		t.Fatalf("%d pauses between 3 steps, want 2", len(paces))
	}
	if started, closed, steps := sc.counts(); started != 1 || closed != 1 || steps != 3 {
		t.Fatalf("started %d, closed %d, steps %d; want 1, 1, 3", started, closed, steps)
	}
	if v := orphansScreen(t, m); !strings.Contains(v, "30 in-progress keys examined in 3 steps") || strings.Count(v, ":inprogress") != 1 || !strings.Contains(v, fixtureOrphan.Key) {
		t.Fatalf("after the scan:\n%s", v)
	}
	var tick *scheduled
	for i := range timers {
		if _, ok := timers[i].msg.(scanTickMsg); ok {
			tick = &timers[i]
		}
	}
	if tick == nil || tick.d != time.Minute {
		t.Fatalf("no periodic scan armed with the scan interval: %+v", timers)
	}
	if v := m.View(); !strings.Contains(v, "· 1 orphan") {
		t.Fatalf("header lacks the orphan count:\n%s", v)
	}
	// The periodic tick starts the next scan.
	m, cmd := stepCmd(m, tick.msg)
	if !scanRunning(m) || cmd == nil {
		t.Fatal("the periodic tick started no scan")
	}
	m, _, _ = runScan(t, m, cmd)
	if started, _, _ := sc.counts(); started != 2 || scanRunning(m) {
		t.Fatalf("after the tick: %d scans started, running %v", started, scanRunning(m))
	}
}

func TestScanKeyStartsOneScanAtATime(t *testing.T) {
	o, _, sc := scanOptions(2)
	m := newTest(t, o, 120, 30)
	m, _, timers := runScan(t, m, m.firstScan())
	var armed tea.Msg // the periodic tick the first scan armed
	for _, s := range timers {
		if _, ok := s.msg.(scanTickMsg); ok {
			armed = s.msg
		}
	}
	if armed == nil || scanRunning(m) {
		t.Fatalf("the first scan armed no tick (running %v): %v", scanRunning(m), timers)
	}
	m, cmd := stepCmd(m, keyMsg("o"))
	if !scanRunning(m) || cmd == nil {
		t.Fatalf("o started no scan: running %v", scanRunning(m))
	}
	if v := m.View(); !strings.Contains(v, "scanning…") {
		t.Fatalf("header does not say it scans:\n%s", v)
	}
	// A second o while it runs does nothing.
	m2, cmd2 := stepCmd(m, keyMsg("o"))
	if cmd2 != nil {
		t.Fatal("a second o started another scan")
	}
	m, _, _ = runScan(t, m2, cmd)
	if started, closed, _ := sc.counts(); started != 2 || closed != 2 || scanRunning(m) {
		t.Fatalf("started %d, closed %d, running %v", started, closed, scanRunning(m))
	}
	// The tick armed by the first scan is stale now: it starts nothing.
	m, cmd = stepCmd(m, armed)
	if cmd != nil || scanRunning(m) {
		t.Fatal("a stale periodic tick started a scan")
	}
}

func TestStaleScanStepsDropped(t *testing.T) {
	o, _, sc := scanOptions(3)
	m := newScanTest(t, o, 120, 30)
	m, cmd := stepCmd(m, keyMsg("o"))
	old := runCmd(cmd)[0].(scanStepMsg) // the first step of scan A ran
	// Had A gone on, it would have paused and woken: that wake is A's.
	_, paused := stepCmd(m, old)
	wakeA, ok := runCmd(paused)[0].(scheduled).msg.(scanWakeMsg)
	if !ok {
		t.Fatalf("scan A's step did not pause: %v", runCmd(paused))
	}
	// An action restarts the scan while A's step was out: nothing new runs
	// until that step returns (one step at a time).
	m, cmd = m.restartScan()
	if cmd != nil {
		t.Fatal("restart started a step while one was running")
	}
	sc.mu.Lock()
	sc.orphans = nil // scan B will find none
	sc.mu.Unlock()
	// A's step returns: dropped, its connection closed, B starts.
	m, cmd = stepCmd(m, old)
	if v := orphansScreen(t, m); !strings.Contains(v, "scanning… 0 in-progress keys examined, 0 steps") {
		t.Fatalf("a stale step counted:\n%s", v)
	}
	m, _, _ = runScan(t, m, cmd)
	if started, closed, _ := sc.counts(); started != 3 || closed != 3 {
		t.Fatalf("started %d, closed %d; want 3 and 3 (A dropped, B finished)", started, closed)
	}
	if v := orphansScreen(t, m); !strings.Contains(v, "no orphaned in-progress lists") || scanRunning(m) {
		t.Fatalf("after scan B:\n%s", v)
	}
	// A stale wake (of a scan replaced during its pause) closes that scan
	// and runs no step.
	_, _, before := sc.counts()
	stale := &fakeScan{f: sc}
	wakeA.scan = stale
	_, cmd = stepCmd(m, wakeA)
	runCmd(cmd)
	if _, closed, steps := sc.counts(); closed != 4 || steps != before {
		t.Fatalf("stale wake: closed %d (want 4), steps %d (want %d)", closed, steps, before)
	}
}

func TestScanPacedByStepDuration(t *testing.T) {
	clock := &fakeClock{t: fixedNow}
	o, _, sc := scanOptions(4)
	sc.clock = clock
	sc.took = []time.Duration{300 * time.Millisecond, 50 * time.Millisecond, 2 * time.Second, 10 * time.Millisecond}
	o.Now = clock.now
	m := newScanTest(t, o, 120, 30)
	m, cmd := stepCmd(m, keyMsg("o"))
	msg := runCmd(cmd)[0]
	m, cmd = stepCmd(m, msg)
	// The step took 300ms on the clock: the next one waits ScanPause of
	// that, and nothing runs in between.
	out := runCmd(cmd)
	if len(out) != 1 {
		t.Fatalf("after a step: %d messages, want one timer", len(out))
	}
	s, ok := out[0].(scheduled)
	if !ok {
		t.Fatalf("after a step: %T, want a timer", out[0])
	}
	if _, ok := s.msg.(scanWakeMsg); !ok || s.d != testScanPace*300*time.Millisecond {
		t.Fatalf("pause %v (%T), want %d x 300ms before the next step", s.d, s.msg, testScanPace)
	}
	m, paces, _ := runScan(t, m, func() tea.Msg { return s.msg })
	want := []time.Duration{testScanPace * 50 * time.Millisecond, testScanPace * 2 * time.Second}
	if len(paces) != len(want) || paces[0] != want[0] || paces[1] != want[1] {
		t.Fatalf("pauses %v, want %v", paces, want)
	}
	if scanRunning(m) {
		t.Fatal("scan did not finish")
	}
}

func TestPollNotHeldByScan(t *testing.T) {
	o, _, _ := scanOptions(5)
	o.Interval = 2 * time.Second
	m := newScanTest(t, o, 120, 30)
	m, scanCmd := stepCmd(m, keyMsg("o"))
	// While the scan's first step is out, the poll's tick fetches.
	m, cmd := stepCmd(m, tickNow(m))
	if cmd == nil {
		t.Fatal("the poll did not start while a scan ran")
	}
	m, _ = deliver(t, m, cmd)
	if _, again := stepCmd(m, tickNow(m)); again == nil || !scanRunning(m) {
		t.Fatalf("the poll did not end (a tick starts none) or the scan stopped: running %v", scanRunning(m))
	}
	m, _, _ = runScan(t, m, scanCmd)
	if scanRunning(m) {
		t.Fatal("scan did not finish")
	}
}

func TestScanErrorShownAndRetriedLater(t *testing.T) {
	o, _, sc := scanOptions(2)
	sc.stepErr = errors.New("scan for in-progress lists: connection reset")
	m := newTest(t, o, 120, 30)
	m, _, timers := runScan(t, m, m.firstScan())
	if v := orphansScreen(t, m); scanRunning(m) || !strings.Contains(v, "scan failed: scan for in-progress lists: connection reset") {
		t.Fatalf("after a failed scan:\n%s", v)
	}
	if _, closed, _ := sc.counts(); closed != 1 {
		t.Fatalf("failed scan closed %d times, want 1", closed)
	}
	found := false
	for _, s := range timers {
		if _, ok := s.msg.(scanTickMsg); ok && s.d == time.Minute {
			found = true
		}
	}
	if !found {
		t.Fatal("no retry armed after a failed scan")
	}
	m = step(t, m, keyMsg("tab"))
	m = step(t, m, keyMsg("tab"))
	if v := m.View(); !strings.Contains(v, "scan failed: scan for in-progress lists: connection reset") {
		t.Fatalf("Orphans view does not show the error:\n%s", v)
	}
}
