package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// workersFixture is the fixture with busy workers: one long-running on a
// dead pool, one long-running with a checkin holding an escape, two short
// ones, and idle ones that the view leaves out.
func workersFixture() *model.Snapshot {
	s := fixture()
	rt := s.RedisTime
	started := func(d time.Duration) int64 { return rt.Add(-d).Unix() }
	s.Workers = []model.Worker{
		{WorkerID: "4be1c9d0a2f3e4d5c6b7a8f9", PoolID: "6f1a2b3c4d5e6f7a8b9c0d1e", Busy: true, JobName: "send_email",
			JobID: "9b1e0c2d3f4a5b6c7d8e9f00", StartedAt: started(42 * time.Minute),
			Args: `{"to":"ops@example.com","template":"welcome_v2","attempt":2,"tags":["a","b"]}`},
		{WorkerID: "88d0e1f2a3b4c5d6e7f8a9b0", PoolID: "6f1a2b3c4d5e6f7a8b9c0d1e"},
		{WorkerID: "e2a9f0c1d2b3a4c5d6e7f801", PoolID: "0123456789abcdef01234567", Busy: true, JobName: "send_email",
			JobID: "1d2c3b4a5f6e7d8c9b0a1f2e", StartedAt: started(3 * time.Hour),
			Args: `{"to":"x@y.z"}`, Checkin: "batch 7/9\x1b[2J", HasCheckin: true, CheckinAt: started(time.Minute)},
		{WorkerID: "17c3d4e5f6a7b8c9d0e1f2a3", PoolID: "1111222233334444aaaabbbb", Busy: true, JobName: "report",
			JobID: "5e4d3c2b1a0f9e8d7c6b5a49", StartedAt: started(95 * time.Second), Args: ""},
		{WorkerID: "a05b6c7d8e9f0a1b2c3d4e5f", PoolID: "1111222233334444aaaabbbb", Busy: true, JobName: "report",
			JobID: "77aa77aa77aa77aa77aa77aa", StartedAt: started(4 * time.Second), Args: `{"day":"2026-11-29"}`,
			Checkin: "starting", HasCheckin: true},
	}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

// workersTab is the index of the Workers tab the header draws.
func workersTab(t *testing.T, m Model) int {
	t.Helper()
	tabs, _ := drawnTabs(m)
	if i := slices.Index(tabs, "Workers"); i >= 0 {
		return i
	}
	t.Fatalf("no Workers tab among %v", tabs)
	return -1
}

// busyDrawn is how many of workersFixture's busy workers the screen
// draws.
func busyDrawn(m Model) int {
	v, n := wideView(m), 0
	for _, id := range []string{"4be1c9d0a2f3e4d5c6b7a8f9", "e2a9f0c1d2b3a4c5d6e7f801", "17c3d4e5f6a7b8c9d0e1f2a3", "a05b6c7d8e9f0a1b2c3d4e5f"} {
		if strings.Contains(v, id) {
			n++
		}
	}
	return n
}

// TestGoldenWorkers: the Workers tab at 80x24, reached with tab like an
// operator would, longest-running first, with LONG and DEAD marks and the
// selected job's arguments under the list.
func TestGoldenWorkers(t *testing.T) {
	o, _ := testOptions(staticSource(workersFixture()))
	m := newTest(t, o, 80, 24)
	for tabIndex(m) != workersTab(t, m) {
		m = step(t, m, keyMsg("tab"))
	}
	view := m.View()
	checkScreen(t, view, 80, 24)
	for _, want := range []string{"Workers", "3h00m", "LONG DEAD", `batch 7/9\x1b[2J`, "ARGUMENTS", `"to": "x@y.z"`} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if strings.Index(view, "3h00m") > strings.Index(view, "42m00s") || strings.Index(view, "42m00s") > strings.Index(view, "1m35s") {
		t.Errorf("not longest-running first:\n%s", view)
	}
	if strings.Contains(view, "88d0e1f2a3b4c5d6e7f8a9b0") || strings.Contains(view, "88d0e1f…") {
		t.Errorf("an idle worker is listed:\n%s", view)
	}
	golden.RequireEqual(t, []byte(view))
}

// TestGoldenWorkerArgs: enter gives the selected job's arguments,
// pretty-printed, the whole body; esc goes back to the list.
func TestGoldenWorkerArgs(t *testing.T) {
	o, _ := testOptions(staticSource(workersFixture()))
	m := newTest(t, o, 80, 24)
	m = toView(t, m, "Workers")
	m = press(t, m, "j") // the 42-minute job
	if !strings.Contains(m.View(), "enter arguments") {
		t.Fatal("enter is not offered on a busy worker")
	}
	m = press(t, m, "enter")
	view := m.View()
	checkScreen(t, view, 80, 24)
	for _, want := range []string{"ARGUMENTS of send_email 9b1e0c2d3f4a5b6c7d8e9f00", `"template": "welcome_v2",`, `    "a",`} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	golden.RequireEqual(t, []byte(view))
	m = press(t, m, "esc")
	if v := m.View(); strings.Contains(v, "esc back") || !strings.Contains(v, "RUNNING") {
		t.Errorf("esc did not go back to the list:\n%s", v)
	}
	if m = press(t, m, "esc"); !strings.Contains(m.View(), "[Workers]") {
		t.Errorf("esc on the list left the Workers view:\n%s", m.View())
	}
}

// The cursor stays on the same worker across polls, and a worker that
// went idle leaves the list and closes its arguments.
func TestWorkersViewFollowsWorker(t *testing.T) {
	s := workersFixture()
	var v view = workersView{km: defaultKeyMap()}
	v = shown(v.setSize(80, 20), s)
	v, _ = v.update(keyMsg("j"))
	v, _ = v.update(keyMsg("j"))
	w, _ := v.(workersView).current()
	if w.WorkerID != "17c3d4e5f6a7b8c9d0e1f2a3" {
		t.Fatalf("third row is %s", w.WorkerID)
	}
	s2 := workersFixture()
	s2.Workers[0].Busy = false // the first row's job ended
	model.Analyze(s2, model.DefaultDeadAfter)
	v = shown(v, s2)
	if w, _ := v.(workersView).current(); w.WorkerID != "17c3d4e5f6a7b8c9d0e1f2a3" {
		t.Errorf("cursor moved to %s", w.WorkerID)
	}
	w, _ = v.(workersView).current()
	var args view = newArgsView(w, s2.RedisTime, s2.RedisTime, defaultKeyMap())
	s3 := workersFixture()
	s3.Workers = s3.Workers[:1] // only the first job still runs
	v = shown(v, s3)
	if args = shown(args, s3); args != nil {
		t.Errorf("the arguments stay open after the job of 17c3d4e5f6a7b8c9d0e1f2a3 ended")
	}
	v = v.(filterable).setFilter("report")
	if got := len(v.(workersView).rows); got != 0 {
		t.Errorf("filter report matched %d rows of one send_email worker", got)
	}
}

func TestPrettyArgs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "(no arguments)"},
		{`{"a":1,"b":[true,null]}`, "  {\n    \"a\": 1,\n    \"b\": [\n      true,\n      null\n    ]\n  }"},
		{`{"e":"\u001b` + "\u202e" + `"}`, "  {\n    \"e\": \"\\u001b\\u202e\"\n  }"},
		{"oops\n\x1b", `  oops\n\x1b  (not JSON)`},
	}
	for _, tt := range tests {
		if got := strings.Join(workerArgLines(tt.in), "\n"); got != tt.want {
			t.Errorf("workerArgLines(%q):\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
}

// TestWorkersEnterOpensArguments goes from keys to state: enter on the
// Workers view gives the selected job's arguments the whole body, esc
// closes them, and esc is offered in the help only while they are open.
func TestWorkersEnterOpensArguments(t *testing.T) {
	o, _ := testOptions(staticSource(workersFixture()))
	m := newTest(t, o, 80, 24)
	m = toView(t, m, "Workers")
	if strings.Contains(m.View(), "esc back") {
		t.Fatal("esc offered before anything is open")
	}
	m = press(t, m, "enter")
	v := m.View()
	if !strings.Contains(v, "ARGUMENTS of") || strings.Contains(v, "RUNNING") {
		t.Fatalf("enter did not open the arguments:\n%s", v)
	}
	if !strings.Contains(v, "esc back") {
		t.Error("esc not offered while the arguments are open")
	}
	if strings.Contains(v, "› detail") {
		t.Error("enter on a worker opened the pool detail")
	}
	m = press(t, m, "esc")
	if v := m.View(); !strings.Contains(v, "RUNNING") || strings.Contains(v, "esc back") {
		t.Errorf("esc did not close the arguments:\n%s", v)
	}
}

// TestWorkersLongAfter: Options.LongAfter sets the cut-off of LONG in the
// Workers view, over the snapshot's own: which jobs are marked, and how
// many.
func TestWorkersLongAfter(t *testing.T) {
	row := func(view, running string) string {
		for _, l := range strings.Split(view, "\n") {
			if strings.Contains(l, running) {
				return l
			}
		}
		t.Fatalf("no row with %s:\n%s", running, view)
		return ""
	}
	for _, tc := range []struct {
		longAfter time.Duration
		long      bool
		marked    int
	}{{0, false, 2}, {time.Minute, true, 3}, {4 * time.Hour, false, 0}} {
		o, _ := testOptions(staticSource(workersFixture()))
		o.LongAfter = tc.longAfter
		m := newTest(t, o, 140, 30)
		for tabIndex(m) != workersTab(t, m) {
			m = step(t, m, keyMsg("tab"))
		}
		if got := strings.Contains(row(m.View(), "1m35s"), "LONG"); got != tc.long {
			t.Errorf("LongAfter %s: the 1m35s job marked LONG = %v, want %v", tc.longAfter, got, tc.long)
		}
		n := 0
		for _, l := range strings.Split(wideView(m), "\n") {
			if slices.Contains(strings.Fields(l), "LONG") {
				n++
			}
		}
		if n != tc.marked {
			t.Errorf("LongAfter %s: %d jobs marked LONG, want %d:\n%s", tc.longAfter, n, tc.marked, m.View())
		}
	}
}
