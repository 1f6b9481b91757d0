package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

func TestOrderRows(t *testing.T) {
	lat := func(d time.Duration) *time.Duration { return &d }
	ok := func(name string) fleetRow { return fleetRow{name: name, state: fleetOK, hasData: true} }
	with := func(r fleetRow, f func(*fleetRow)) fleetRow { f(&r); return r }
	tests := []struct {
		name string
		rows []fleetRow
		want []string
	}{
		{"polling state first", []fleetRow{
			{name: "conn", state: fleetConnecting},
			ok("ok"),
			{name: "slow", state: fleetSlow, hasData: true},
			{name: "stale", state: fleetStale, hasData: true},
			{name: "down", state: fleetDown},
		}, []string{"down", "stale", "slow", "ok", "conn"}},
		{"problems before late before healthy", []fleetRow{
			ok("fine"),
			with(ok("late"), func(r *fleetRow) { r.sums.late = 3 }),
			with(ok("drift"), func(r *fleetRow) { r.sums.drift = 1 }),
			with(ok("orphan"), func(r *fleetRow) { r.orphans, r.orphansKnown = 1, true }),
		}, []string{"drift", "orphan", "late", "fine"}},
		{"more dead first, then drift", []fleetRow{
			with(ok("one dead"), func(r *fleetRow) { r.sums.dead = 1; r.sums.drift = 5 }),
			with(ok("two dead"), func(r *fleetRow) { r.sums.dead = 2 }),
			with(ok("one dead less drift"), func(r *fleetRow) { r.sums.dead = 1; r.sums.drift = 1 }),
		}, []string{"two dead", "one dead", "one dead less drift"}},
		{"older data first within a state", []fleetRow{
			{name: "a", state: fleetStale, hasData: true, age: 10 * time.Second},
			{name: "b", state: fleetStale, hasData: true, age: time.Minute},
		}, []string{"b", "a"}},
		{"worst latency, then queued, then name", []fleetRow{
			with(ok("b"), func(r *fleetRow) { r.sums.queued = 5 }),
			with(ok("a"), func(r *fleetRow) { r.sums.queued = 5 }),
			with(ok("slow queue"), func(r *fleetRow) { r.sums.worstLatency = lat(time.Hour); r.sums.queued = 1 }),
			with(ok("big queue"), func(r *fleetRow) { r.sums.queued = 900 }),
			with(ok("empty"), func(r *fleetRow) {}),
		}, []string{"slow queue", "big queue", "a", "b", "empty"}},
		{"the age of fresh data does not reorder", []fleetRow{
			with(ok("b"), func(r *fleetRow) { r.age = 0 }),
			with(ok("a"), func(r *fleetRow) { r.age = 3 * time.Second }),
			with(ok("c"), func(r *fleetRow) { r.age = time.Second }),
		}, []string{"a", "b", "c"}},
		{"same name keeps the fleet's order", []fleetRow{
			{index: 0, name: "x", state: fleetDown},
			{index: 1, name: "x", state: fleetDown},
		}, []string{"x#0", "x#1"}},
		{"empty", nil, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.rows {
				if tc.rows[i].index == 0 {
					tc.rows[i].index = i
				}
			}
			got := []string{}
			dup := map[string]int{}
			for _, r := range tc.rows {
				dup[r.name]++
			}
			for _, i := range orderRows(tc.rows) {
				n := tc.rows[i].name
				if dup[n] > 1 {
					n = fmt.Sprintf("%s#%d", n, tc.rows[i].index)
				}
				got = append(got, n)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("order %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	start := fixedNow
	iv := 2 * time.Second
	tests := []struct {
		name    string
		m       Model
		now     time.Time
		want    fleetState
		wantAge time.Duration
	}{
		{"first poll running", Model{}, start.Add(time.Second), fleetConnecting, time.Second},
		{"first poll hangs", Model{}, start.Add(4 * time.Second), fleetSlow, 4 * time.Second},
		{"down", Model{err: errRefused}, start.Add(time.Minute), fleetDown, 0},
		{"stale", Model{err: errRefused, snap: fixture(), fetchedAt: start}, start.Add(45 * time.Second), fleetStale, 45 * time.Second},
		{"fresh", Model{snap: fixture(), fetchedAt: start}, start.Add(3 * time.Second), fleetOK, 3 * time.Second},
		{"no new data for two intervals", Model{snap: fixture(), fetchedAt: start}, start.Add(4 * time.Second), fleetSlow, 4 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, age := classify(&tc.m, tc.now, start, slowAfter(iv))
			if s != tc.want || age != tc.wantAge {
				t.Fatalf("classify: %v %s, want %v %s", s, age, tc.want, tc.wantAge)
			}
		})
	}
}

// TestFleetOnePollPerIntervalPerTarget: fifty targets with intervals of 1
// to 5 seconds, a fifth of them down, over simulated half a minute: every
// healthy target is read exactly once at start and once per interval, a
// down one no more often (it backs off), and never two reads at once.
func TestFleetOnePollPerIntervalPerTarget(t *testing.T) {
	d := newFleetDriver(t)
	var targets []Options
	var srcs []*fakeSource
	for i := 0; i < 50; i++ {
		var src *fakeSource
		if i%5 == 4 {
			src = &fakeSource{next: func(int) (*model.Snapshot, error) { return nil, errRefused }}
		} else {
			src = staticSource(fixture())
		}
		o, _ := fleetTarget(fmt.Sprintf("t%02d", i), src, time.Duration(1+i%5)*time.Second)
		targets = append(targets, o)
		srcs = append(srcs, src)
	}
	d.start(targets...)
	const span = 30 * time.Second
	for s := 0; s < int(span/time.Second); s++ {
		d.advance(time.Second)
		d.f.View() // drawing reads nothing
	}
	for i, src := range srcs {
		iv := targets[i].Interval
		perInterval := 1 + int(span/iv)
		src.mu.Lock()
		calls, most := src.calls, src.maxAtOnc
		src.mu.Unlock()
		if most > 1 {
			t.Errorf("%s: %d reads at once", targets[i].Target, most)
		}
		if i%5 == 4 {
			if calls > perInterval || calls < 2 {
				t.Errorf("%s (down, interval %s): %d reads in %s, want between 2 and %d", targets[i].Target, iv, calls, span, perInterval)
			}
			continue
		}
		if calls != perInterval {
			t.Errorf("%s (interval %s): %d reads in %s, want %d", targets[i].Target, iv, calls, span, perInterval)
		}
	}
}

// TestFleetSlowTargetHoldsUpNobody: one healthy target, one down, one
// whose reads block. The healthy one is read and updated every interval,
// the down one backs off with its error shown, the blocked one is marked
// slow; released, it catches up.
func TestFleetSlowTargetHoldsUpNobody(t *testing.T) {
	d := newFleetDriver(t)
	live := staticSource(fixture())
	down := &fakeSource{next: func(int) (*model.Snapshot, error) { return nil, errRefused }}
	slow := newBlockingSource(fixture())
	slow.d = d
	const iv = 2 * time.Second
	oLive, _ := fleetTarget("live", live, iv)
	oDown, _ := fleetTarget("down", down, iv)
	oSlow, _ := fleetTarget("slow", slow, iv)
	d.start(oLive, oDown, oSlow)

	for n := 1; n <= 5; n++ {
		d.advance(iv)
		if got := live.count(); got != n+1 {
			t.Fatalf("after %d intervals the live target was read %d times, want %d", n, got, n+1)
		}
		if r := d.row(0); r.state != fleetOK || r.age != 0 || !r.hasData {
			t.Fatalf("after %d intervals the live target is %v, data %s old", n, r.state, r.age)
		}
		if got := slow.count(); got != 1 {
			t.Fatalf("the blocked target was read %d times while its first read hangs", got)
		}
	}
	if r := d.row(2); r.state != fleetSlow || r.note != "no answer for 10s" {
		t.Fatalf("blocked target: %v %q, want SLOW, no answer for 10s", r.state, r.note)
	}
	if r := d.row(1); r.state != fleetDown || !strings.Contains(r.note, "connection refused") {
		t.Fatalf("down target: %v %q", r.state, r.note)
	}
	// Back-off: reads at 0, 2, 6 (2+4) s; the next one is due at 14 s.
	if got := down.count(); got != 3 {
		t.Fatalf("the down target was read %d times in 10s, want 3 (backing off)", got)
	}
	d.send(keyMsg("g")) // the worst target: the down one, its error in full below the table
	view := d.f.View()
	checkScreen(t, view, 140, 40)
	for _, want := range []string{"SLOW", "DOWN", "no answer for 10s", "down: down.internal:6379 ns work\nDOWN, retry in 4s: dial tcp 127.0.0.1:6379: connect: connection refused", "3 targets: 1 DOWN · 1 SLOW · 1 ok"} {
		if !strings.Contains(view, want) {
			t.Errorf("fleet view lacks %q:\n%s", want, view)
		}
	}
	// Worst first: down, slow, then live.
	if got := d.f.order; fmt.Sprint(got) != "[1 2 0]" {
		t.Errorf("order %v, want [1 2 0]", got)
	}

	slow.free()
	d.settle()
	if r := d.row(2); r.state != fleetOK || !r.hasData {
		t.Fatalf("released target: %v, data %v", r.state, r.hasData)
	}
	// A read that took longer than a tenth of the interval makes the next
	// one wait longer (Redis is slow), at most ten intervals; the live
	// target's pace is its own.
	d.advance(iv)
	if got := slow.count(); got != 1 {
		t.Fatalf("released target read again after one interval (%d reads): no back-off after a slow read", got)
	}
	d.advance(9 * iv)
	if got := slow.count(); got != 2 {
		t.Fatalf("released target read %d times within ten intervals, want 2", got)
	}
}

// TestFleetEnterActEsc: enter opens the selected target's screen, whose
// keys go to it; X and y reap on that target only, with its name in the
// dialog and the audit line; esc closes the dialog first, then goes back
// to the fleet.
func TestFleetEnterActEsc(t *testing.T) {
	d := newFleetDriver(t)
	oA, depsA := fleetTarget("east", staticSource(fixture()), time.Hour)
	oB, depsB := fleetTarget("west", staticSource(fixture()), time.Hour)
	d.start(oA, oB)
	if got := fmt.Sprint(d.f.order); got != "[0 1]" {
		t.Fatalf("order %v, want [0 1] (same data: by name)", got)
	}
	d.send(keyMsg("j"))
	d.send(keyMsg("enter"))
	if d.f.open != 1 {
		t.Fatalf("enter on the second row opened %d", d.f.open)
	}
	view := d.f.View()
	checkScreen(t, view, 140, 40)
	for _, want := range []string{"fleet › west  esc: fleet", "west  west.internal:6379  ns work", "[Pools]"} {
		if !strings.Contains(view, want) {
			t.Errorf("target screen lacks %q:\n%s", want, view)
		}
	}

	d.send(keyMsg("X"))
	if !strings.Contains(d.f.View(), "west: Reap 2 dead pools?") {
		t.Fatalf("dialog does not name the target:\n%s", d.f.View())
	}
	d.send(keyMsg("esc")) // cancels the dialog, stays on the target
	if d.f.open != 1 || dialogOpen(*d.f.children[1]) {
		t.Fatalf("esc in a dialog: open %d, dialog %v", d.f.open, dialogOpen(*d.f.children[1]))
	}
	d.send(keyMsg("X"))
	d.advance(DialogReadTime) // the operator reads the plan
	d.send(keyMsg("y"))
	if n := len(depsA.reaper.executed()); n != 0 {
		t.Fatalf("the other target's reaper ran %d plans", n)
	}
	if n := len(depsB.reaper.executed()); n != 1 {
		t.Fatalf("the target's reaper ran %d plans, want 1", n)
	}
	if len(depsA.audit.entries) != 0 || len(depsB.audit.entries) != 1 {
		t.Fatalf("audit entries: %d on east, %d on west", len(depsA.audit.entries), len(depsB.audit.entries))
	}
	if e := depsB.audit.entries[0]; e.Target != "west" || e.Address != "west.internal:6379" || e.Action != "reap" {
		t.Fatalf("audit entry %+v", e)
	}
	if !strings.Contains(d.f.View(), "reaped 2 pools") {
		t.Errorf("the target's status line lacks the result:\n%s", d.f.View())
	}

	d.send(keyMsg("esc"))
	if d.f.open != -1 {
		t.Fatalf("esc with nothing open stayed on target %d", d.f.open)
	}
	view = d.f.View()
	checkScreen(t, view, 140, 40)
	if !strings.Contains(view, "2 targets: 2 ok") {
		t.Errorf("fleet view after esc:\n%s", view)
	}
}

// TestFleetEscInTargetDetailAndFilter: esc leaves a target's detail view
// and clears its filter before it goes back to the fleet.
func TestFleetEscInTargetDetailAndFilter(t *testing.T) {
	d := newFleetDriver(t)
	o, _ := fleetTarget("east", staticSource(fixture()), time.Hour)
	d.start(o)
	d.send(keyMsg("enter"))
	d.send(keyMsg("enter")) // the pool under the cursor
	if !strings.Contains(d.f.View(), "› detail") {
		t.Fatalf("enter in a target's screen did not open the pool:\n%s", d.f.View())
	}
	d.send(keyMsg("esc"))
	if view := d.f.View(); d.f.open != 0 || strings.Contains(view, "› detail") {
		t.Fatalf("esc in the detail view: open %d:\n%s", d.f.open, view)
	}
	for _, k := range []string{"/", "w", "enter"} {
		d.send(keyMsg(k))
	}
	d.send(keyMsg("esc"))
	if d.f.open != 0 || d.f.children[0].currentFilter() != "" {
		t.Fatalf("esc with a filter: open %d, filter %q", d.f.open, d.f.children[0].currentFilter())
	}
	d.send(keyMsg("esc"))
	if d.f.open != -1 {
		t.Fatal("esc did not go back to the fleet")
	}
}

// TestFleetReadOnly: the fleet view has no write key; in a read-only
// target's screen the writes are hidden and inert, as on a single screen.
func TestFleetReadOnly(t *testing.T) {
	d := newFleetDriver(t)
	o, deps := fleetTarget("east", staticSource(fixture()), time.Hour)
	o.ReadOnly = true
	d.start(o)
	d.send(keyMsg("?"))
	for _, w := range []string{"reap", "requeue", "repair"} {
		if strings.Contains(d.f.View(), w) {
			t.Errorf("fleet help shows %q:\n%s", w, d.f.View())
		}
	}
	d.send(keyMsg("?"))
	d.send(keyMsg("enter"))
	d.send(keyMsg("X"))
	view := d.f.View()
	if strings.Contains(view, "y: run it") || strings.Contains(view, "X reap") || !strings.Contains(view, "read-only: reap is disabled") || !strings.Contains(view, "[READ-ONLY]") {
		t.Fatalf("read-only target:\n%s", view)
	}
	if n := len(deps.reaper.executed()); n != 0 {
		t.Fatalf("reaper ran %d plans in read-only mode", n)
	}
}

// TestFleetBadDataReachesNoScreenRaw: target names, addresses, errors and
// snapshots with control, escape and bidirectional text reach neither the
// fleet view nor the bar above a target's screen raw.
func TestFleetBadDataReachesNoScreenRaw(t *testing.T) {
	d := newFleetDriver(t)
	bad, _ := fleetTarget("bad"+evil, staticSource(badSnapshot()), time.Hour)
	bad.Address = "redis" + evil + ":6379"
	down, _ := fleetTarget("down"+evil, &fakeSource{next: func(int) (*model.Snapshot, error) {
		return nil, fmt.Errorf("read%s", evil)
	}}, time.Hour)
	d.start(bad, down)
	for _, w := range []int{80, 140} {
		d.send(tea.WindowSizeMsg{Width: w, Height: 24})
		for _, keys := range [][]string{{"g"}, {"j"}, {"?"}, {"?", "enter"}} {
			for _, k := range keys {
				d.send(keyMsg(k))
			}
			v := d.f.View()
			checkScreen(t, v, w, 24)
			if s, ok := screenSafe(v, true); !ok {
				t.Errorf("%v at %d columns: %q reached the screen:\n%s", keys, w, s, v)
			}
			if !strings.Contains(v, `\x1b[31m`) {
				t.Errorf("%v at %d columns: the bad text is not shown escaped:\n%s", keys, w, v)
			}
		}
		d.send(keyMsg("esc"))
	}
}

// slowReaper blocks until released, so that an action is running.
type slowReaper struct {
	fakeReaper
	d       *fleetDriver
	release chan struct{}
}

func (s *slowReaper) Reap(ctx context.Context, p reaper.Plan, progress reaper.Progress) (reaper.Result, error) {
	s.d.park()
	<-s.release
	return s.fakeReaper.Reap(ctx, p, progress)
}

// TestFleetActionRunsOnWhileAway: an action started in a target's screen
// keeps running when the operator goes back to the fleet; q waits for it;
// its result shows in the fleet's status line, with the target's name.
func TestFleetActionRunsOnWhileAway(t *testing.T) {
	d := newFleetDriver(t)
	o, _ := fleetTarget("east", staticSource(fixture()), time.Hour)
	r := &slowReaper{d: d, release: make(chan struct{})}
	o.Writes = Writes{Reap: r}
	other, _ := fleetTarget("west", staticSource(fixture()), time.Hour)
	d.start(o, other)
	d.send(keyMsg("enter"))
	d.send(keyMsg("X"))
	d.advance(DialogReadTime) // the operator reads the plan
	d.send(keyMsg("y"))
	if !actionRunning(*d.f.children[0]) {
		t.Fatal("no action running after X, y")
	}
	d.send(keyMsg("esc"))
	if d.f.open != -1 {
		t.Fatal("esc while an action runs did not go back to the fleet")
	}
	if v := d.f.View(); !strings.Contains(v, "east: reaping 2 pools…") {
		t.Errorf("the fleet view does not show the running action:\n%s", v)
	}
	d.send(keyMsg("q"))
	if d.quits != 0 || !strings.Contains(d.f.status.text, "east: reaping 2 pools is running") {
		t.Fatalf("q while an action runs: %d quits, status %q", d.quits, d.f.status.text)
	}
	d.wake(1)
	close(r.release)
	d.settle()
	if actionRunning(*d.f.children[0]) {
		t.Fatal("the action did not end")
	}
	if v := d.f.View(); !strings.Contains(v, "east: reaped 2 pools") {
		t.Errorf("the fleet's status line lacks the result:\n%s", v)
	}
	if n := len(r.executed()); n != 1 {
		t.Fatalf("reaper ran %d plans", n)
	}
	d.send(keyMsg("q"))
	if d.quits != 1 {
		t.Fatalf("q once the action ended: %d quits", d.quits)
	}
}

func TestFleetKeyBurst(t *testing.T) {
	d := newFleetDriver(t)
	var targets []Options
	for i := 0; i < 4; i++ {
		o, _ := fleetTarget(fmt.Sprintf("t%d", i), staticSource(fixture()), time.Hour)
		targets = append(targets, o)
	}
	d.start(targets...)
	d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jjj")})
	if d.f.selected != 3 {
		t.Fatalf("jjj selected target %d, want 3", d.f.selected)
	}
}

// TestFleetFitsEverySize: the fleet view and a target's screen are
// exactly the window, never wider, from tiny to wide.
func TestFleetFitsEverySize(t *testing.T) {
	d := newFleetDriver(t)
	var targets []Options
	for i := 0; i < 30; i++ {
		o, _ := fleetTarget(fmt.Sprintf("target-%02d", i), staticSource(fixture()), time.Hour)
		targets = append(targets, o)
	}
	d.start(targets...)
	d.send(keyMsg("G"))
	for _, size := range [][2]int{{1, 1}, {20, 5}, {40, 8}, {80, 24}, {100, 30}, {200, 60}} {
		d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkScreen(t, d.f.View(), size[0], size[1])
		d.send(keyMsg("enter"))
		checkScreen(t, d.f.View(), size[0], size[1])
		d.send(keyMsg("esc"))
	}
	if !strings.Contains(d.f.View(), "> target-29") {
		t.Errorf("the last target is not on screen under the cursor:\n%s", d.f.View())
	}
}

// TestFleetRefreshAll: r polls every target at once, one poll each.
func TestFleetRefreshAll(t *testing.T) {
	d := newFleetDriver(t)
	var srcs []*fakeSource
	var targets []Options
	for i := 0; i < 3; i++ {
		src := staticSource(fixture())
		o, _ := fleetTarget(fmt.Sprintf("t%d", i), src, time.Hour)
		srcs, targets = append(srcs, src), append(targets, o)
	}
	d.start(targets...)
	d.send(keyMsg("r"))
	for i, src := range srcs {
		if n := src.count(); n != 2 {
			t.Errorf("target %d read %d times after r, want 2", i, n)
		}
	}
}
