package tui

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// fleetDriver runs a fleet the way the program does (every command in a
// goroutine of its own, its message back into Update) on a virtual clock:
// timers fire only when the test advances the clock, and settle waits
// until every command has delivered its message or is parked (on a timer,
// or in a source that blocks).
type fleetDriver struct {
	t  *testing.T
	f  Fleet
	mu sync.Mutex
	// cond wakes settle: a message arrived or a goroutine parked.
	cond   *sync.Cond
	now    time.Time
	timers []*vtimer
	queue  []tea.Msg
	// quits counts the QuitMsgs the fleet's commands returned.
	quits int
	// active counts the goroutines running a command that are neither
	// done nor parked.
	active int
}

type vtimer struct {
	at  time.Time
	seq int
	ch  chan struct{}
}

func newFleetDriver(t *testing.T) *fleetDriver {
	d := &fleetDriver{t: t, now: fixedNow}
	d.cond = sync.NewCond(&d.mu)
	return d
}

// start builds the fleet on the driver's clock at 140x40 and runs Init.
func (d *fleetDriver) start(targets ...Options) *fleetDriver {
	d.t.Helper()
	f := NewFleet(FleetOptions{Targets: targets, Now: d.Now, Renderer: asciiRenderer()})
	f.after = d.after
	for i := range f.children {
		f.children[i].after = d.after
	}
	d.f = f
	d.send(tea.WindowSizeMsg{Width: 140, Height: 40})
	d.run(f.Init())
	return d
}

// Now is the virtual clock.
func (d *fleetDriver) Now() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.now
}

// after is the fleet's and every target screen's timer: the command parks
// until the clock passes its time.
func (d *fleetDriver) after(dur time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		d.mu.Lock()
		tm := &vtimer{at: d.now.Add(dur), seq: len(d.timers), ch: make(chan struct{})}
		d.timers = append(d.timers, tm)
		d.active--
		d.cond.Broadcast()
		d.mu.Unlock()
		<-tm.ch
		return fn(tm.at)
	}
}

// park marks the calling command as blocked until wake is called; a
// source that blocks calls it.
func (d *fleetDriver) park() {
	d.mu.Lock()
	d.active--
	d.cond.Broadcast()
	d.mu.Unlock()
}

// wake counts n parked commands as running again, before they are
// released.
func (d *fleetDriver) wake(n int) {
	d.mu.Lock()
	d.active += n
	d.mu.Unlock()
}

// spawn runs a command in a goroutine of its own.
func (d *fleetDriver) spawn(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.mu.Lock()
	d.active++
	d.mu.Unlock()
	go func() {
		msg := cmd()
		d.mu.Lock()
		if msg != nil {
			d.queue = append(d.queue, msg)
		}
		d.active--
		d.cond.Broadcast()
		d.mu.Unlock()
	}()
}

// run spawns cmd and settles.
func (d *fleetDriver) run(cmd tea.Cmd) {
	d.t.Helper()
	d.spawn(cmd)
	d.settle()
}

// send applies one message and settles.
func (d *fleetDriver) send(msg tea.Msg) {
	d.t.Helper()
	d.apply(msg)
	d.settle()
}

func (d *fleetDriver) apply(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.spawn(c)
		}
		return
	case tea.QuitMsg:
		d.quits++
		return
	}
	next, cmd := d.f.Update(msg)
	d.f = next.(Fleet)
	d.spawn(cmd)
}

// settle delivers messages until none is left and every command is done
// or parked.
func (d *fleetDriver) settle() {
	d.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // wakes the wait below so that the deadline is checked
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				d.cond.Broadcast()
			}
		}
	}()
	for {
		d.mu.Lock()
		for len(d.queue) == 0 && d.active > 0 && time.Now().Before(deadline) {
			d.cond.Wait()
		}
		if len(d.queue) == 0 {
			active := d.active
			d.mu.Unlock()
			if active > 0 {
				d.t.Fatalf("commands still running after 10s: %d", active)
			}
			return
		}
		msg := d.queue[0]
		d.queue = d.queue[1:]
		d.mu.Unlock()
		d.apply(msg)
	}
}

// advance moves the clock by dur, firing the timers that come due in time
// order; the timers of one instant fire together, then a settle.
func (d *fleetDriver) advance(dur time.Duration) {
	d.t.Helper()
	d.mu.Lock()
	end := d.now.Add(dur)
	d.mu.Unlock()
	for {
		d.mu.Lock()
		sort.SliceStable(d.timers, func(a, b int) bool { return d.timers[a].at.Before(d.timers[b].at) })
		if len(d.timers) == 0 || d.timers[0].at.After(end) {
			d.now = end
			d.mu.Unlock()
			d.settle() // the fleet redraws with the new time on its next message
			return
		}
		// Every timer due at that instant fires together.
		d.now = d.timers[0].at
		for len(d.timers) > 0 && d.timers[0].at.Equal(d.now) {
			d.active++
			close(d.timers[0].ch)
			d.timers = d.timers[1:]
		}
		d.mu.Unlock()
		d.settle()
	}
}

// row is target i's row as the fleet shows it now.
func (d *fleetDriver) row(i int) fleetRow {
	f := d.f
	f.now = d.Now()
	return f.row(i)
}

// blockingSource blocks every call until released (a Redis paused with
// DEBUG SLEEP); afterwards it answers at once.
type blockingSource struct {
	d       *fleetDriver
	snap    *model.Snapshot
	mu      sync.Mutex
	calls   int
	parked  int
	release chan struct{}
	freed   bool
}

func newBlockingSource(snap *model.Snapshot) *blockingSource {
	return &blockingSource{snap: snap, release: make(chan struct{})}
}

func (b *blockingSource) Poll(ctx context.Context, _ redisq.PollRequest) (*model.Snapshot, error) {
	b.mu.Lock()
	b.calls++
	if b.freed {
		b.mu.Unlock()
		return b.snap, nil
	}
	b.parked++
	b.mu.Unlock()
	b.d.park()
	select {
	case <-b.release:
		return b.snap, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// free releases the blocked calls; the driver counts them as running
// before they run.
func (b *blockingSource) free() {
	b.mu.Lock()
	n := b.parked
	b.parked, b.freed = 0, true
	b.mu.Unlock()
	b.d.wake(n)
	close(b.release)
}

func (b *blockingSource) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls
}

func (f *fakeSource) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// fleetTarget is a target's options for fleet tests: a name, a source,
// its own reaper and audit, and a long fetch timeout (the virtual clock
// does not move real timeouts).
func fleetTarget(name string, src Poller, interval time.Duration) (Options, testDeps) {
	o, deps := testOptions(nil)
	o.Reads.Poll = src
	o.Target = name
	o.Address = name + ".internal:6379"
	o.Interval = interval
	o.FetchTimeout = time.Hour
	o.Now = nil
	o.Renderer = nil
	return o, deps
}
