package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// deliver runs cmd and feeds its messages back into the model, following
// the chain while it produces messages (timers are returned, not run).
func deliver(t *testing.T, m Model, cmd tea.Cmd) (Model, []scheduled) {
	t.Helper()
	var timers []scheduled
	queue := runCmd(cmd)
	for i := 0; i < 100 && len(queue) > 0; i++ {
		msg := queue[0]
		queue = queue[1:]
		if s, ok := msg.(scheduled); ok {
			timers = append(timers, s)
			continue
		}
		if _, ok := msg.(tea.QuitMsg); ok {
			continue
		}
		var next tea.Cmd
		m, next = stepCmd(m, msg)
		queue = append(queue, runCmd(next)...)
	}
	return m, timers
}

func tickOf(timers []scheduled) (tickMsg, time.Duration, bool) {
	for _, s := range timers {
		if tk, ok := s.msg.(tickMsg); ok {
			return tk, s.d, true
		}
	}
	return tickMsg{}, 0, false
}

func TestPollArmsNextTickOnlyWhenFetchReturns(t *testing.T) {
	src := staticSource(fixture())
	o, _ := testOptions(src)
	o.Interval = 2 * time.Second
	m := newInstant(o)
	// Init's poll counts as in flight: a tick before its result starts
	// none.
	if _, cmd := stepCmd(m, tickNow(m)); cmd != nil {
		t.Fatal("a tick before the first result started a poll")
	}
	// The poll returns: the next tick is armed, with the interval.
	m, cmd := stepCmd(m, runCmd(m.firstFetch())[0])
	tk, d, ok := tickOf(func() []scheduled { _, ts := deliver(t, m, cmd); return ts }())
	if !ok || d != 2*time.Second {
		t.Fatalf("after a poll: tick %v armed for %s, want one for 2s", ok, d)
	}
	// The tick starts exactly one poll; a second tick of the same
	// generation while it runs does nothing.
	m, cmd = stepCmd(m, tk)
	if cmd == nil {
		t.Fatal("tick did not start a poll")
	}
	if _, cmd2 := stepCmd(m, tk); cmd2 != nil {
		t.Fatal("a tick while a poll runs started another")
	}
	if src.calls != 1 {
		t.Fatalf("source called %d times before the command ran, want 1", src.calls)
	}
	_ = cmd
}

func TestRefreshWhileInFlightDropsTheOldResult(t *testing.T) {
	first := fixture()
	src := staticSource(first)
	o, _ := testOptions(src)
	m := newTest(t, o, 120, 30)
	m, cmd := stepCmd(m, keyMsg("r")) // poll of generation 1 starts
	if cmd == nil {
		t.Fatal("r did not poll")
	}
	pending := runCmd(cmd)[0].(snapshotMsg)

	// While it runs, an action finishes and asks for a refresh: no second
	// poll starts.
	m, cmd = m.refresh()
	if cmd != nil {
		t.Fatal("refresh started a second poll while one was in flight")
	}
	// The old result (read before the change) arrives: it is dropped and a
	// new poll starts at once.
	old := fixture()
	old.Pools = old.Pools[:1]
	pending.snap = old
	m, cmd = stepCmd(m, pending)
	if drawnPools(m) != len(first.Pools) {
		t.Fatalf("stale result applied: %d pools on screen", drawnPools(m))
	}
	if cmd == nil {
		t.Fatal("no new poll after dropping the stale result")
	}
	// The new poll is of the current generation: its result is applied.
	fresh := runCmd(cmd)[0].(snapshotMsg)
	fresh.snap = old
	m = step(t, m, fresh)
	if drawnPools(m) != 1 {
		t.Fatalf("current result not applied: %d pools", drawnPools(m))
	}
}

func TestOldTickDropped(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := newTest(t, o, 120, 30)
	old := tickNow(m)
	m, cmd := stepCmd(m, keyMsg("r"))
	m, _ = deliver(t, m, cmd)
	if _, cmd = stepCmd(m, tickNow(m)); cmd == nil {
		t.Fatal("a tick of the refreshed poll started none")
	}
	if _, cmd = stepCmd(m, old); cmd != nil {
		t.Fatal("a tick armed before the refresh started a poll")
	}
}

func TestRedisAwayKeepsSnapshotBacksOffAndRecovers(t *testing.T) {
	down := true
	snap := fixture()
	src := &fakeSource{next: func(call int) (*model.Snapshot, error) {
		if call == 1 || !down {
			return snap, nil
		}
		return nil, errRefused
	}}
	o, _ := testOptions(src)
	o.Interval, o.MaxBackoff = time.Second, 5*time.Second
	m := newTest(t, o, 120, 30)
	var waits []time.Duration
	for i := 0; i < 5; i++ {
		var cmd tea.Cmd
		m, cmd = stepCmd(m, tickNow(m))
		var timers []scheduled
		m, timers = deliver(t, m, cmd)
		_, d, ok := tickOf(timers)
		if !ok {
			t.Fatalf("failure %d: no retry armed", i+1)
		}
		waits = append(waits, d)
		if v := m.View(); drawnPools(m) != len(snap.Pools) || !strings.Contains(v, "STALE") || !strings.Contains(v, "connection refused") {
			t.Fatalf("failure %d: want the last snapshot kept and the error shown:\n%s", i+1, v)
		}
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Fatalf("retry waits %v, want %v", waits, want)
	}
	if v := m.View(); !strings.Contains(v, "STALE") || !strings.Contains(v, "connection refused") {
		t.Fatalf("view does not show stale data and the error:\n%s", v)
	}
	down = false
	m, cmd := stepCmd(m, tickNow(m))
	m, timers := deliver(t, m, cmd)
	if _, d, _ := tickOf(timers); d != time.Second {
		t.Fatalf("after recovery: next poll in %s", d)
	}
	if v := m.View(); strings.Contains(v, "STALE") || !strings.Contains(v, "● updated") {
		t.Fatalf("recovered view still stale:\n%s", v)
	}
}

func TestNavigationKeys(t *testing.T) {
	o, _ := testOptions(staticSource(manyPools(100)))
	m := newTest(t, o, 80, 24)
	rows := strings.Count(m.View(), " host-") // the pools' rows on screen
	tests := []struct {
		keys []string
		want int
	}{
		{[]string{"j"}, 1},
		{[]string{"down", "down", "k"}, 1},
		{[]string{"G"}, 99},
		{[]string{"G", "g"}, 0},
		{[]string{"pgdown"}, rows - 1},
		{[]string{"pgdown", "pgup"}, 0},
		{[]string{"up"}, 0},
		{[]string{"G", "j"}, 99},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.keys, ","), func(t *testing.T) {
			mm := m
			for _, k := range tc.keys {
				mm = step(t, mm, keyMsg(k))
			}
			if got := cursorPool(mm); got != manyPoolID(100, tc.want) {
				t.Fatalf("cursor on %s, want pool %d", got, tc.want)
			}
			if !strings.Contains(mm.View(), "> ") || !strings.Contains(mm.View(), manyPoolID(100, tc.want)[:12]) {
				t.Fatalf("selected pool %d not on screen", tc.want)
			}
		})
	}
}

func manyPools(n int) *model.Snapshot {
	rt := fixedNow.Add(-2 * time.Second)
	s := &model.Snapshot{Namespace: "work", RedisTime: rt}
	for i := 0; i < n; i++ {
		age := time.Duration(i%30) * time.Second
		s.Pools = append(s.Pools, model.Pool{ID: fmt.Sprintf("%024x", i), Heartbeat: &model.Heartbeat{
			HeartbeatAt: rt.Add(-age).Unix(), StartedAt: rt.Add(-time.Hour).Unix(), Host: fmt.Sprintf("host-%d", i), PID: int64(i),
			Concurrency: 4, JobNames: []string{"a", "b"}}})
	}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

func TestCursorStaysOnPoolID(t *testing.T) {
	snap := fixture()
	src := &fakeSource{next: func(int) (*model.Snapshot, error) { return snap, nil }}
	o, _ := testOptions(src)
	m := newTest(t, o, 120, 30)
	for i := 0; i < 3; i++ {
		m = step(t, m, keyMsg("j"))
	}
	sel := cursorPool(m)
	// The next snapshot has the pools in another order (and one fewer).
	next := fixture()
	next.Pools = append([]model.Pool{next.Pools[4], next.Pools[3]}, next.Pools[:3]...)
	next.Pools = next.Pools[1:]
	snap = next
	m, cmd := stepCmd(m, keyMsg("r"))
	m, _ = deliver(t, m, cmd)
	if got := cursorPool(m); sel == "" || got != sel {
		t.Fatalf("cursor on %s after the refresh, want %s", got, sel)
	}
}

func TestReapOneDeadPoolConfirmed(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	m := newTest(t, o, 120, 30)
	m = step(t, m, keyMsg("j")) // the dead pool with a heartbeat
	sel := model.Pool{ID: cursorPool(m)}
	if row := cursorRow(m); !strings.Contains(row, "DEAD") || sel.ID == "" {
		t.Fatalf("fixture: row 2 is %q", row)
	}
	m = step(t, m, keyMsg("x"))
	if !dialogOpen(m) {
		t.Fatal("x on a dead pool opened no dialog")
	}
	if v := m.View(); !strings.Contains(v, "Reap 1 dead pool?") || !strings.Contains(v, "send_email    3     work:jobs:send_email") {
		t.Fatalf("dialog does not show the plan:\n%s", v)
	}
	m, cmd := stepCmd(m, keyMsg("y"))
	if dialogOpen(m) || !actionRunning(m) {
		t.Fatal("y did not start the reap")
	}
	// While it runs, another reap cannot start.
	m2 := step(t, m, keyMsg("X"))
	// It says why only under the progress bar, which stays drawn.
	if dialogOpen(m2) || !actionRunning(m2) {
		t.Fatalf("second reap: dialog %v, status %q", dialogOpen(m2), statusOf(m2))
	}
	m, _ = deliver(t, m, cmd)
	plans := d.reaper.executed()
	if len(plans) != 1 || len(plans[0].Pools) != 1 || plans[0].Pools[0].PoolID != sel.ID {
		t.Fatalf("executed plans %+v, want one for %s", plans, sel.ID)
	}
	if actionRunning(m) {
		t.Fatal("still running after the result")
	}
	if !strings.Contains(statusOf(m), "reaped 1 pool, 4 jobs back in their queues") {
		t.Fatalf("status %q", statusOf(m))
	}
	// The refresh after it: TestDriveReap.
	if len(d.audit.entries) != 1 {
		t.Fatalf("%d audit entries, want 1", len(d.audit.entries))
	}
	e := d.audit.entries[0]
	if e.Action != "reap" || e.Moved != 4 || strings.Join(e.Targets, ",") != sel.ID || e.Address != "redis.internal:6379" || e.Namespace != "work" {
		t.Fatalf("audit entry %+v", e)
	}
}

func TestReapAllCancelled(t *testing.T) {
	for _, k := range []string{"n", "esc"} {
		t.Run(k, func(t *testing.T) {
			o, d := testOptions(staticSource(fixture()))
			m := newTest(t, o, 120, 30)
			m = step(t, m, keyMsg("X"))
			if dialogTitle(m) != "Reap 2 dead pools?" {
				t.Fatal("X opened no dialog for the two dead pools")
			}
			m, cmd := stepCmd(m, keyMsg(k))
			m, _ = deliver(t, m, cmd)
			if dialogOpen(m) || actionRunning(m) || len(d.reaper.executed()) != 0 || len(d.audit.entries) != 0 {
				t.Fatal("cancel ran something")
			}
		})
	}
}

func TestReapSkippedPoolShowsError(t *testing.T) {
	snap := fixture()
	o, d := testOptions(staticSource(snap))
	d.reaper.skip = snap.DeadPools()[0]
	m := newTest(t, o, 120, 30)
	m = step(t, m, keyMsg("X"))
	m, cmd := stepCmd(m, keyMsg("y"))
	m, _ = deliver(t, m, cmd)
	if !strings.Contains(statusOf(m), "alive again, not reaped") {
		t.Fatalf("status %q", statusOf(m))
	}
	d.reaper.err = errors.New("redis at x: connection reset")
	m = step(t, m, keyMsg("X"))
	m, cmd = stepCmd(m, keyMsg("y"))
	m, timers := deliver(t, m, cmd)
	if !strings.HasPrefix(statusOf(m), "failed: redis at x: connection reset") {
		t.Fatalf("status %q", statusOf(m))
	}
	// The status line clears itself.
	for _, s := range timers {
		if c, ok := s.msg.(statusClearMsg); ok {
			m = step(t, m, c)
		}
	}
	if statusOf(m) != "" {
		t.Fatalf("status not cleared: %q", statusOf(m))
	}
}

func TestXOnLivePoolDoesNotOpen(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := newTest(t, o, 120, 30)
	m = step(t, m, keyMsg("G")) // an alive pool
	m = step(t, m, keyMsg("x"))
	if dialogOpen(m) {
		t.Fatal("x on a live pool opened a dialog")
	}
	if !strings.Contains(statusOf(m), "is alive") {
		t.Fatalf("status %q", statusOf(m))
	}
}

func TestReadOnlyHidesAndDisablesActions(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	o.ReadOnly = true
	m := newTest(t, o, 120, 30)
	m = step(t, m, keyMsg("?"))
	view := m.View()
	if strings.Contains(view, "reap") {
		t.Fatalf("read-only help mentions reap:\n%s", view)
	}
	if !strings.Contains(view, "READ-ONLY") {
		t.Fatal("no READ-ONLY badge")
	}
	m = step(t, m, keyMsg("esc"))
	for _, k := range []string{"x", "X", "y"} {
		var cmd tea.Cmd
		m, cmd = stepCmd(m, keyMsg(k))
		view := m.View()
		if strings.Contains(view, "y: run it") || actionRunning(m) || !strings.Contains(view, "read-only: reap is disabled") {
			t.Fatalf("%s in read-only: a dialog, an action running, or no read-only hint:\n%s", k, view)
		}
		m, _ = deliver(t, m, cmd)
	}
	if len(d.reaper.executed()) != 0 {
		t.Fatal("read-only executed a reap")
	}
	// Without read-only the same help does show the actions.
	o.ReadOnly = false
	m = step(t, newTest(t, o, 120, 30), keyMsg("?"))
	if !strings.Contains(m.View(), "reap") {
		t.Fatal("help never mentions reap: the test above proves nothing")
	}
}

func TestTenThousandPoolsRendersOnlyTheScreen(t *testing.T) {
	o, _ := testOptions(staticSource(manyPools(10000)))
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		m := newTest(t, o, size[0], size[1])
		for _, k := range []string{"", "pgdown", "G", "k"} {
			if k != "" {
				m = step(t, m, keyMsg(k))
			}
			checkScreen(t, m.View(), size[0], size[1])
		}
		if last := cursorPool(m); last == "" || !strings.Contains(m.View(), last[:12]) {
			t.Fatal("selected pool not on screen at the bottom")
		}
	}
}

// BenchmarkView moves the cursor and redraws at 100 and at 10,000 pools:
// the two should cost about the same, since only visible rows are rendered.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("pools=%d", n), func(b *testing.B) {
			o, _ := testOptions(staticSource(manyPools(n)))
			m := New(o)
			next, _ := m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
			m = next.(Model)
			next, _ = m.Update(runCmd(m.firstFetch())[0])
			m = next.(Model)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				next, _ = m.Update(keyMsg("j"))
				m = next.(Model)
				_ = m.View()
			}
		})
	}
}

func TestDetailPeekAndBack(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := newTest(t, o, 100, 40)
	m = step(t, m, keyMsg("j"))
	m, cmd := enterCmd(t, m)
	if !strings.Contains(m.View(), "[Pools › detail]") {
		t.Fatalf("enter did not open the detail:\n%s", m.View())
	}
	if !strings.Contains(m.View(), "loading") {
		t.Fatal("no loading note before the peek returns")
	}
	var first peekMsg
	for _, msg := range runCmd(cmd) {
		if p, ok := msg.(peekMsg); ok {
			first = p
		}
		m = step(t, m, msg)
	}
	v := m.View()
	for _, want := range []string{"#1 resize_image", `"template": "welcome"`, `\u001b[2Jevil`, `not json \x1b]0;title\x07`} {
		if !strings.Contains(v, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	if strings.ContainsRune(v, '\x1b') || strings.ContainsRune(v, '\x07') {
		t.Error("a control character reached the screen")
	}
	// r peeks again; the first peek, arriving after it with nothing in
	// it, is ignored.
	m = press(t, m, "r")
	first.jobs = nil
	m = step(t, m, first)
	if !strings.Contains(m.View(), "#1 resize_image") {
		t.Fatal("an old peek result replaced the current one")
	}
	m = step(t, m, keyMsg("esc"))
	if v := m.View(); strings.Contains(v, "› detail") || !strings.Contains(v, "[Pools]") {
		t.Fatalf("esc did not go back:\n%s", v)
	}
}

func TestTabsAndFilter(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := newTest(t, o, 120, 30)
	m = step(t, m, keyMsg("tab"))
	if m.focused().title() != "Job types" {
		t.Fatal("tab did not go to job types")
	}
	m = step(t, m, keyMsg("shift+tab"))
	if m.focused().title() != "Pools" {
		t.Fatal("shift+tab did not come back")
	}
	m = step(t, m, keyMsg("/"))
	for _, r := range "worker-d" {
		m = step(t, m, keyMsg(string(r)))
	}
	if n := poolRowsDrawn(m); n != 1 {
		t.Fatalf("filter worker-d leaves %d rows", n)
	}
	m = step(t, m, keyMsg("backspace"))
	m = step(t, m, keyMsg("enter"))
	if _, editing := filterEditing(m); editing || !strings.HasPrefix(statusOf(m), "filter: worker- ") || poolRowsDrawn(m) != 4 {
		t.Fatalf("status %q rows %d", statusOf(m), poolRowsDrawn(m))
	}
	// q while filtering types a q; after enter it quits.
	m = step(t, m, keyMsg("esc"))
	if strings.Contains(statusOf(m), "filter:") || poolRowsDrawn(m) != 5 {
		t.Fatal("esc did not clear the filter")
	}
	if _, cmd := stepCmd(m, keyMsg("q")); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q does not quit")
	}
	if _, cmd := stepCmd(m, keyMsg("ctrl+c")); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("ctrl+c does not quit")
	}
}

func TestLayout(t *testing.T) {
	tests := []struct {
		w, h, header, footer int
		body                 int
		tooSmall             bool
	}{
		{80, 24, 2, 2, 20, false},
		{80, 24, 3, 2, 19, false},
		{160, 48, 2, 8, 38, false},
		{80, 5, 2, 2, 1, true},
		{10, 24, 2, 2, 20, true},
		{0, 0, 2, 2, 0, true},
	}
	for _, tc := range tests {
		l := computeLayout(tc.w, tc.h, tc.header, tc.footer)
		if l.body != tc.body || l.tooSmall != tc.tooSmall {
			t.Errorf("computeLayout(%d, %d, %d, %d) = body %d small %v, want %d %v", tc.w, tc.h, tc.header, tc.footer, l.body, l.tooSmall, tc.body, tc.tooSmall)
		}
	}
	for _, w := range []int{80, 100, 120, 160, 250} {
		for name, cols := range map[string][]column{"pools": poolColumns(w, nil), "job types": jobTypeColumns(w, nil, false)} {
			total := cursorWidth + colGap*(len(cols)-1)
			for _, c := range cols {
				total += c.width
			}
			if total > w || (name == "pools" && total != w) {
				t.Errorf("%s at width %d: columns take %d", name, w, total)
			}
		}
	}
	if c := poolColumns(120, nil); c[1].width != 24 {
		t.Errorf("pool ID column at 120 is %d wide, want the whole 24-character ID", c[1].width)
	}
}

func TestBackoff(t *testing.T) {
	for i, want := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second} {
		if got := backoff(2*time.Second, 30*time.Second, i+1); got != want {
			t.Errorf("failure %d: %s, want %s", i+1, got, want)
		}
	}
}

func TestSparkline(t *testing.T) {
	tests := []struct {
		vals  []int64
		width int
		want  string
	}{
		{nil, 5, ""},
		{[]int64{0, 0}, 5, "▁▁"},
		{[]int64{0, 7, 14}, 5, "▁▅█"},
		{[]int64{1, 2, 3, 4}, 2, "▇█"},
	}
	for _, tc := range tests {
		if got := sparkline(tc.vals, tc.width); got != tc.want {
			t.Errorf("sparkline(%v, %d) = %q, want %q", tc.vals, tc.width, got, tc.want)
		}
	}
	h := queueHistory{}
	for i := 0; i < historyLen+5; i++ {
		h = h.add(&model.Snapshot{JobTypes: []model.JobType{{Name: "a", Queued: int64(i)}}})
	}
	if n := len(h["a"]); n != historyLen || h["a"][n-1] != historyLen+4 {
		t.Fatalf("history %v", h["a"])
	}
}

func TestCleanReachesEveryCell(t *testing.T) {
	snap := fixture()
	snap.Pools[3].Heartbeat.JobNames = []string{"job\x1b]0;pwned\x07", "\u202egnp.exe"}
	o, _ := testOptions(staticSource(snap))
	m := newTest(t, o, 200, 30)
	v := m.View()
	if strings.ContainsAny(v, "\x1b\x07\u202e") {
		t.Fatalf("control characters on screen: %q", v)
	}
}

func TestProgressBarWhileRunning(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := newTest(t, o, 100, 24)
	m = step(t, m, keyMsg("X"))
	m, cmd := stepCmd(m, keyMsg("y"))
	if !actionRunning(m) {
		t.Fatal("not running")
	}
	ch := make(chan tea.Msg)
	m, next := stepCmd(m, actionProgressMsg{seq: m.running.seq, moved: 3, total: 6, ch: ch})
	if next == nil {
		t.Fatal("progress does not wait for the next event")
	}
	v := m.View()
	if !strings.Contains(v, "reaping 2 pools… [") || !strings.Contains(v, "3/6 jobs") || !strings.Contains(v, "#") {
		t.Fatalf("no progress bar:\n%s", v)
	}
	// q does not walk away from a running reap; ctrl+c does.
	mq, qcmd := stepCmd(m, keyMsg("q"))
	for _, msg := range runCmd(qcmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			t.Fatal("q quit during a reap")
		}
	}
	// The reap goes on; its progress stays drawn.
	if !actionRunning(mq) {
		t.Fatalf("status %q", statusOf(mq))
	}
	m, _ = deliver(t, m, cmd)
	if actionRunning(m) || !strings.Contains(statusOf(m), "reaped 2 pools") {
		t.Fatalf("running %v status %q", actionRunning(m), statusOf(m))
	}
}

func TestResizeKeepsSelectionAndFits(t *testing.T) {
	o, _ := testOptions(staticSource(manyPools(500)))
	m := newTest(t, o, 160, 48)
	m = step(t, m, keyMsg("G"))
	sel := cursorPool(m)
	if sel != manyPoolID(500, 499) {
		t.Fatalf("G put the cursor on %s", sel)
	}
	for _, size := range [][2]int{{80, 24}, {200, 60}, {100, 30}} {
		m = step(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkScreen(t, m.View(), size[0], size[1])
		if got := cursorPool(m); got != sel || !strings.Contains(m.View(), sel[:12]) {
			t.Fatalf("at %dx%d the selection moved to %s or is off screen", size[0], size[1], got)
		}
	}
	m = step(t, m, tea.WindowSizeMsg{Width: 30, Height: 5})
	if !strings.Contains(m.View(), "too small") {
		t.Fatalf("no too-small note at 30x5:\n%s", m.View())
	}
}
