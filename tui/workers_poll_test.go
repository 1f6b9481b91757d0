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
	"github.com/workq-tui/workq-tui/redisq"
)

// workersPoller answers like redisq's Poller: the snapshot read at the
// poller's clock (its Redis time), with the workers only when the request
// asks for them (nil otherwise: not read). It records the requests.
type workersPoller struct {
	mu   sync.Mutex
	now  time.Time
	snap *model.Snapshot
	reqs []redisq.PollRequest
}

func (p *workersPoller) Now() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.now
}

func (p *workersPoller) advance(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now = p.now.Add(d)
}

func (p *workersPoller) Poll(_ context.Context, req redisq.PollRequest) (*model.Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, req)
	out := *p.snap
	out.RedisTime = p.now
	if !req.Workers {
		out.Workers = nil
	}
	return &out, nil
}

// asked is whether each poll so far asked for the workers.
func (p *workersPoller) asked() []bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]bool, len(p.reqs))
	for i, r := range p.reqs {
		out[i] = r.Workers
	}
	return out
}

// lastAsked is whether the last poll asked for the workers.
func (p *workersPoller) lastAsked(t *testing.T) bool {
	t.Helper()
	a := p.asked()
	if len(a) == 0 {
		t.Fatal("no poll yet")
	}
	return a[len(a)-1]
}

// toTab presses tab until the view at index i is focused, and delivers
// what the keys started (a poll among them).
func toTab(t *testing.T, m Model, i int) Model {
	t.Helper()
	for n := 0; tabIndex(m) != i; n++ {
		if n > tabCount(m) {
			t.Fatalf("tab never reached view %d", i)
		}
		next, cmd := stepCmd(m, keyMsg("tab"))
		m, _ = deliver(t, next, cmd)
	}
	return m
}

// TestPollAsksForWorkersWhileTheirViewIsShown: the regular poll reads the
// workers only while the Workers view is on show; opening the view polls
// at once, and until that poll returns the view shows the workers it has,
// saying how old they are.
func TestPollAsksForWorkersWhileTheirViewIsShown(t *testing.T) {
	p := &workersPoller{now: fixedNow, snap: workersFixture()}
	o, _ := testOptions(nil)
	o.Reads.Poll = p
	o.Now = p.Now
	m := newTest(t, o, 120, 30)
	wi := workersTab(t, m)
	if p.lastAsked(t) {
		t.Fatal("the first poll, on the Pools view, asked for the workers")
	}
	m, _ = pollOnce(t, m)
	if p.lastAsked(t) {
		t.Fatal("a poll on the Pools view asked for the workers")
	}

	// Opening the view polls at once, for the workers.
	polls := len(p.asked())
	m = toTab(t, m, wi)
	if got := p.asked(); len(got) != polls+1 || !got[polls] {
		t.Fatalf("opening the Workers view: polls asking for workers %v after %d, want one more asking", got, polls)
	}
	view := m.View()
	checkScreen(t, view, 120, 30)
	if !strings.Contains(view, "3h00m") || strings.Contains(view, "workers as of") {
		t.Fatalf("the Workers view after its poll:\n%s", view)
	}
	m, _ = pollOnce(t, m)
	if !p.lastAsked(t) {
		t.Fatal("a poll while the Workers view is shown did not ask for the workers")
	}

	// Closing it stops: the polls leave the workers out, and the view
	// keeps the last ones read.
	p.advance(time.Minute)
	m = step(t, m, keyMsg("tab"))
	m, _ = pollOnce(t, m)
	if p.lastAsked(t) {
		t.Fatal("a poll after the Workers view closed asked for the workers")
	}
	// Opened again 4 minutes later: the old workers, with their age, until
	// the poll it started returns.
	p.advance(4 * time.Minute)
	m, cmd := stepCmd(m, keyMsg("shift+tab"))
	if tabIndex(m) != wi || cmd == nil {
		t.Fatalf("back on the Workers view: tab %d, poll started %v", tabIndex(m), cmd != nil)
	}
	view = m.View()
	checkScreen(t, view, 120, 30)
	if !strings.Contains(view, "workers as of 5m00s ago: reading them again…") || !strings.Contains(view, "3h00m") {
		t.Fatalf("the reopened view does not say how old its workers are:\n%s", view)
	}
	if n := busyDrawn(m); n != 4 {
		t.Fatalf("the reopened view draws %d busy workers, want the 4 last read:\n%s", n, view)
	}
	m, _ = deliver(t, m, cmd)
	if !p.lastAsked(t) {
		t.Fatal("reopening the view polled without the workers")
	}
	if view = m.View(); strings.Contains(view, "workers as of") {
		t.Fatalf("fresh workers shown as old:\n%s", view)
	}
}

// TestOpeningWorkersDuringAPollPollsAgain: a poll in flight when the view
// opens (it does not read the workers) is dropped when it returns, and a
// poll for the workers follows at once: still one at a time.
func TestOpeningWorkersDuringAPollPollsAgain(t *testing.T) {
	p := &workersPoller{now: fixedNow, snap: workersFixture()}
	o, _ := testOptions(nil)
	o.Reads.Poll = p
	o.Now = p.Now
	m := newTest(t, o, 120, 30)
	wi := workersTab(t, m)
	m, inflight := stepCmd(m, tickNow(m))
	if inflight == nil {
		t.Fatal("the tick started no poll")
	}
	for tabIndex(m) != wi {
		var cmd tea.Cmd
		m, cmd = stepCmd(m, keyMsg("tab"))
		if cmd != nil {
			t.Fatal("a key started a second poll while one was in flight")
		}
	}
	if busyDrawn(m) != 0 || !strings.Contains(m.View(), "reading workers…") {
		t.Fatalf("the view without workers yet:\n%s", m.View())
	}
	m, _ = deliver(t, m, inflight)
	if got := p.asked(); len(got) != 3 || got[1] || !got[2] {
		t.Fatalf("polls asking for workers %v, want [false false true]", got)
	}
	if n := busyDrawn(m); n != 4 || strings.Contains(m.View(), "workers as of") {
		t.Fatalf("after the poll: %d busy workers drawn:\n%s", n, m.View())
	}
}

// TestFleetPollsNoWorkers: the fleet view polls its targets without the
// workers; a target's screen opened on its Workers view reads them at
// once, and going back to the fleet stops.
func TestFleetPollsNoWorkers(t *testing.T) {
	d := newFleetDriver(t)
	pollers := []*workersPoller{{snap: workersFixture()}, {snap: workersFixture()}}
	var targets []Options
	for i, p := range pollers {
		p.now = fixedNow
		o, _ := fleetTarget([]string{"a", "b"}[i], nil, 2*time.Second)
		o.Reads.Poll = p
		targets = append(targets, o)
	}
	d.start(targets...)
	d.advance(5 * time.Second)
	for i, p := range pollers {
		for _, a := range p.asked() {
			if a {
				t.Fatalf("target %d: a poll of the fleet view asked for workers: %v", i, p.asked())
			}
		}
	}
	open := d.f.order[d.f.list.cursor]
	p := pollers[open]
	d.send(keyMsg("enter"))
	for tabIndex(*d.f.children[open]) != workersTab(t, *d.f.children[open]) {
		d.send(keyMsg("tab"))
	}
	if !p.lastAsked(t) {
		t.Fatalf("the target's Workers view polled without them: %v", p.asked())
	}
	d.advance(2 * time.Second)
	if !p.lastAsked(t) {
		t.Fatalf("polls while the Workers view is shown: %v", p.asked())
	}
	d.send(keyMsg("esc"))
	if d.f.open != -1 {
		t.Fatal("esc did not go back to the fleet")
	}
	d.advance(2 * time.Second)
	if p.lastAsked(t) {
		t.Fatalf("back on the fleet view, the target still reads workers: %v", p.asked())
	}
	n := len(p.asked())
	d.send(keyMsg("enter"))
	if got := p.asked(); len(got) != n+1 || !got[n] {
		t.Fatalf("reopening the target on its Workers view: %v after %d polls", got, n)
	}
	for i, q := range pollers {
		if i == open {
			continue
		}
		for _, a := range q.asked() {
			if a {
				t.Fatalf("target %d, never opened, read workers: %v", i, q.asked())
			}
		}
	}
}

// failingSweeper fails every sweep with err.
type failingSweeper struct{ err error }

func (s failingSweeper) Sweep(context.Context) (*model.Snapshot, error) { return nil, s.err }

// TestHeaderSaysWhySweepFailed: the header gives the sweep's error,
// cleaned and cut to the width, while the polls work; while they fail,
// their own error line says what is wrong.
func TestHeaderSaysWhySweepFailed(t *testing.T) {
	p := &workersPoller{now: fixedNow, snap: fixture()}
	o, _ := testOptions(nil)
	long := "sweep: read tcp 10.0.0.7:51234->10.0.0.9:6379: i/o timeout\x1b[2J while reading job type " + strings.Repeat("x", 80)
	o.Reads.Poll = p
	o.Now = p.Now
	o.Reads.Sweep = failingSweeper{errors.New(long)}
	m := newTest(t, o, 80, 24)
	m, _ = deliver(t, m, m.firstSweep())
	h := m.renderHeader(p.Now())
	if !strings.Contains(h, "sweep failed") || !strings.Contains(h, "sweep error: sweep: read tcp 10.0.0.7:51234->10.0.0.9:6379: i/o timeout") {
		t.Fatalf("the header lacks the sweep's error:\n%s", h)
	}
	checkScreen(t, m.View(), 80, 24)

	m = step(t, m, current(m, snapshotMsg{err: errRefused, at: p.Now()}))
	h = m.renderHeader(p.Now())
	if strings.Contains(h, "sweep error") || !strings.Contains(h, "connection refused") || !strings.Contains(h, "sweep failed") {
		t.Fatalf("while the polls fail:\n%s", h)
	}
}

// switchSweeper fails its sweeps while fail is set.
type switchSweeper struct {
	fail  *bool
	snap  *model.Snapshot
	calls *int
}

func (s switchSweeper) Sweep(context.Context) (*model.Snapshot, error) {
	*s.calls++
	if *s.fail {
		return nil, errRefused
	}
	return s.snap, nil
}

// TestSweepAgainWhenRedisIsBack: a sweep that failed while Redis was away
// runs again as soon as a poll succeeds after failed ones, so that its
// error does not stay on screen until the next sweep is due; a sweep that
// failed while polls worked waits for its interval.
func TestSweepAgainWhenRedisIsBack(t *testing.T) {
	p := &workersPoller{now: fixedNow, snap: fixture()}
	fail, calls := true, 0
	o, _ := testOptions(nil)
	o.Reads.Poll = p
	o.Now = p.Now
	o.Reads.Sweep = switchSweeper{fail: &fail, snap: fixture(), calls: &calls}
	m := newTest(t, o, 80, 24)
	m, _ = deliver(t, m, m.firstSweep())
	if h := m.renderHeader(p.Now()); !strings.Contains(h, "sweep failed") || calls != 1 {
		t.Fatalf("the first sweep did not fail (%d calls):\n%s", calls, h)
	}
	// A poll that works after polls that worked: no sweep yet.
	m, cmd := stepCmd(m, current(m, snapshotMsg{snap: fixture(), at: p.Now()}))
	m, _ = deliver(t, m, cmd)
	if calls != 1 {
		t.Fatalf("a sweep ran before its interval while Redis was up: %d calls", calls)
	}
	// Redis goes away, then comes back.
	m = step(t, m, current(m, snapshotMsg{err: errRefused, at: p.Now()}))
	fail = false
	m, cmd = stepCmd(m, current(m, snapshotMsg{snap: fixture(), at: p.Now()}))
	m, _ = deliver(t, m, cmd)
	if calls != 2 {
		t.Fatalf("no sweep once Redis was back: %d calls", calls)
	}
	if h := m.renderHeader(p.Now()); strings.Contains(h, "sweep error") || strings.Contains(h, "sweep failed") {
		t.Errorf("the header still shows the sweep's failure:\n%s", h)
	}
}
