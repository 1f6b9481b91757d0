package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// slowPoller is a Poller on a fake clock: each poll moves the clock by the
// next of took, so the screen measures that duration. It records the
// requests it got.
type slowPoller struct {
	mu    sync.Mutex
	now   time.Time
	took  []time.Duration
	snap  *model.Snapshot
	reqs  []redisq.PollRequest
	calls int
}

func (p *slowPoller) Now() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.now
}

func (p *slowPoller) Poll(_ context.Context, req redisq.PollRequest) (*model.Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls < len(p.took) {
		p.now = p.now.Add(p.took[p.calls])
	}
	p.calls++
	p.reqs = append(p.reqs, req)
	return p.snap, nil
}

// fakeSweeper returns its snapshot and counts the sweeps.
type fakeSweeper struct {
	mu    sync.Mutex
	snap  *model.Snapshot
	calls int
}

func (s *fakeSweeper) Sweep(context.Context) (*model.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.snap, nil
}

// pollOnce delivers a tick of the current generation and the poll it
// starts; it returns the wait armed for the next poll.
func pollOnce(t *testing.T, m Model) (Model, time.Duration) {
	t.Helper()
	m, cmd := stepCmd(m, tickNow(m))
	if cmd == nil {
		t.Fatal("the tick started no poll")
	}
	m, timers := deliver(t, m, cmd)
	_, d, ok := tickOf(timers)
	if !ok {
		t.Fatal("no next poll armed")
	}
	return m, d
}

func TestSlowRedisStretchesThePollAndComesBack(t *testing.T) {
	p := &slowPoller{now: fixedNow, snap: fixture(),
		// The first poll is Init's; then the ticks'.
		took: []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, 800 * time.Millisecond,
			5 * time.Second, 150 * time.Millisecond, 200 * time.Millisecond}}
	o, _ := testOptions(nil)
	o.Reads.Poll = p
	o.Now = p.Now
	o.Interval = 2 * time.Second
	m := newTest(t, o, 120, 30)
	if h := m.renderHeader(p.Now()); strings.Contains(h, "Redis slow") {
		t.Fatalf("after a quick first poll, the header says Redis is slow:\n%s", h)
	}
	for i, want := range []struct {
		wait   time.Duration
		header string
	}{
		{2 * time.Second, ""},                               // 100ms: a twentieth of the interval
		{8 * time.Second, "Redis slow: polling every 8s"},   // 800ms
		{20 * time.Second, "Redis slow: polling every 20s"}, // 5s: at most ten times the interval
		{2 * time.Second, ""},                               // 150ms: quick again, back at once
		{2 * time.Second, ""},                               // 200ms: exactly a tenth is quick
	} {
		var d time.Duration
		m, d = pollOnce(t, m)
		if d != want.wait {
			t.Errorf("poll %d: next poll in %s, want %s", i+2, d, want.wait)
		}
		header := m.renderHeader(p.Now())
		if want.header == "" && strings.Contains(header, "Redis slow") {
			t.Errorf("poll %d: header says Redis is slow:\n%s", i+2, header)
		}
		if want.header != "" && !strings.Contains(header, want.header) {
			t.Errorf("poll %d: header lacks %q:\n%s", i+2, want.header, header)
		}
	}
}

// TestSlowPollNeverOverlaps: a tick that comes while a slow poll runs
// starts nothing.
func TestSlowPollNeverOverlaps(t *testing.T) {
	p := &slowPoller{now: fixedNow, snap: fixture()}
	o, _ := testOptions(nil)
	o.Reads.Poll = p
	o.Now = p.Now
	m := newTest(t, o, 120, 30)
	m, cmd := stepCmd(m, tickNow(m))
	if cmd == nil {
		t.Fatal("tick started no poll")
	}
	if _, again := stepCmd(m, tickNow(m)); again != nil {
		t.Fatal("a second poll started while one was in flight")
	}
}

func TestDriftShownIsTheSweeps(t *testing.T) {
	polled := fixture() // send_email drifts in the poll's own numbers
	swept := fixture()
	for i := range swept.JobTypes {
		swept.JobTypes[i].Drift = swept.JobTypes[i].Name == "report"
	}
	swept.Findings = model.Findings(swept)
	p := &slowPoller{now: fixedNow, snap: polled}
	sw := &fakeSweeper{snap: swept}
	o, _ := testOptions(nil)
	o.Reads.Poll = p
	o.Now = p.Now
	o.Reads.Sweep = sw
	o.SweepInterval = 30 * time.Second
	m := newTest(t, o, 160, 30)
	if n := drawnCount(m, "drift"); n != -1 || !strings.Contains(m.renderHeader(p.Now()), "sweeping…") {
		t.Fatalf("before the first sweep: %d drift shown, header:\n%s", n, m.renderHeader(p.Now()))
	}
	m, timers := deliver(t, m, m.firstSweep())
	types := toView(t, m, "Job types")
	report, sendEmail := drawnRow(types, "report"), drawnRow(types, "send_email")
	if !strings.Contains(report, "DRIFT") || strings.Contains(sendEmail, "DRIFT") || drawnCount(m, "drift") != 1 {
		t.Fatalf("after the sweep: %d drift, rows:\n%s\n%s", drawnCount(m, "drift"), report, sendEmail)
	}
	var next sweepTickMsg
	for _, s := range timers {
		if tk, ok := s.msg.(sweepTickMsg); ok && s.d == 30*time.Second {
			next = tk
		}
	}
	if _, cmd := stepCmd(m, next); cmd == nil {
		t.Fatalf("no next sweep armed for 30s: %v", timers)
	}
	p.now = p.now.Add(12 * time.Second)
	if h := m.renderHeader(p.Now()); !strings.Contains(h, "swept 12s ago") {
		t.Fatalf("header lacks the sweep's age:\n%s", h)
	}
	// The next poll reads every list of the drifted job type, and the
	// pool open in the detail view.
	m = openPool(t, m, "fedcba9876543210fedcba98")
	m, _ = pollOnce(t, m)
	last := p.reqs[len(p.reqs)-1]
	if last.Open != "fedcba9876543210fedcba98" || len(last.JobTypes) != 1 || last.JobTypes[0] != "report" {
		t.Fatalf("poll request %+v", last)
	}
	m = toView(t, press(t, m, "esc"), "Job types")
	if row := drawnRow(m, "report"); !strings.Contains(row, "DRIFT") {
		t.Fatalf("a poll after the sweep lost its drift: %s", row)
	}
}

// TestPollLeavesDriftToTheSweep: the drift shown has one owner. A screen
// that sweeps asks every poll to leave drift out (the sweep's alone is
// shown); one that does not sweep takes the poll's.
func TestPollLeavesDriftToTheSweep(t *testing.T) {
	for _, sweeps := range []bool{true, false} {
		p := &slowPoller{now: fixedNow, snap: fixture()}
		o, _ := testOptions(nil)
		o.Reads.Poll = p
		o.Now = p.Now
		if sweeps {
			o.Reads.Sweep = &fakeSweeper{snap: fixture()}
		}
		m := newTest(t, o, 120, 30)
		m, _ = pollOnce(t, m)
		if len(p.reqs) == 0 {
			t.Fatal("no poll")
		}
		for _, req := range p.reqs {
			if req.NoDrift != sweeps {
				t.Fatalf("sweeping %v: poll request %+v", sweeps, req)
			}
		}
		if !sweeps && drawnCount(m, "drift") != 1 {
			t.Fatal("without a sweep the poll's drift is not shown")
		}
	}
}

func TestRefreshSweepsOneAtATime(t *testing.T) {
	p := &slowPoller{now: fixedNow, snap: fixture()}
	sw := &fakeSweeper{snap: fixture()}
	o, _ := testOptions(nil)
	o.Reads.Poll = p
	o.Now = p.Now
	o.Reads.Sweep = sw
	m := newTest(t, o, 120, 30)
	first := runCmd(m.firstSweep())[0].(sweepMsg)
	// r while Init's sweep runs: the poll starts, no second sweep.
	m, cmd := stepCmd(m, keyMsg("r"))
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(sweepMsg); ok {
			t.Fatal("r started a sweep while one ran")
		}
	}
	// The running sweep ends: the asked-for one starts at once.
	m, cmd = stepCmd(m, first)
	msgs := runCmd(cmd)
	if len(msgs) != 1 {
		t.Fatalf("after the sweep: %d messages, want the next sweep's", len(msgs))
	}
	if _, ok := msgs[0].(sweepMsg); !ok {
		t.Fatalf("after the sweep: %T", msgs[0])
	}
	// A sweep tick of the older generation does nothing.
	if _, cmd := stepCmd(m, sweepTickMsg{gen: first.gen}); cmd != nil {
		t.Fatal("an old sweep tick started a sweep")
	}
}
