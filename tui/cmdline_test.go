package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// cmdScreen is a screen with the fake sets on the Pools view, its first
// snapshot applied.
func cmdScreen(t *testing.T, readOnly bool, w, h int) Model {
	t.Helper()
	o, _ := setsOptions(deadFixture())
	o.ReadOnly = readOnly
	return newTest(t, o, w, h)
}

// typeLine opens the command line, types text and presses the keys
// after it ("tab", "enter", ...).
func typeLine(t *testing.T, m Model, text string, after ...string) Model {
	t.Helper()
	m = drive(t, m, keyMsg(":"))
	if !cmdLineOpen(m) {
		t.Fatal(": did not open the command line")
	}
	if text != "" {
		m = drive(t, m, keyMsg(text))
	}
	return drive(t, m, keys(after...)...)
}

// TestCmdLineJobsSet: ":jobs retry" then ":jobs dead" show the Jobs view on
// that set, its members on screen, and close the line.
func TestCmdLineJobsSet(t *testing.T) {
	m := cmdScreen(t, false, 100, 30)
	m = typeLine(t, m, "jobs retry", "enter")
	v := jobsView(t, m)
	if !m.setsFocused() || v.set != model.SetRetry || cmdLineOpen(m) {
		t.Fatalf("after :jobs retry: focused %v set %s open %v", m.setsFocused(), v.set, cmdLineOpen(m))
	}
	if view := m.View(); !strings.Contains(view, "smtp 421") {
		t.Errorf("the retry set is not on screen:\n%s", view)
	}
	m = typeLine(t, m, "jobs dead", "enter")
	v = jobsView(t, m)
	view := m.View()
	if v.set != model.SetDead || !v.loaded || v.total != 45 {
		t.Fatalf("after :jobs dead: set %s loaded %v total %d", v.set, v.loaded, v.total)
	}
	if !strings.Contains(view, "[Jobs]") || !strings.Contains(view, "i/o timeout") || strings.Contains(view, "smtp 421") {
		t.Errorf("the dead set is not what is on screen:\n%s", view)
	}
	checkScreen(t, view, 100, 30)
}

// TestCmdLineViews: each view command focuses its tab and leaves what was
// pushed, as tab does.
func TestCmdLineViews(t *testing.T) {
	m := cmdScreen(t, false, 100, 30)
	m = openPool(t, m, "aaaabbbbccccddddeeeeffff")
	for _, tc := range []struct{ cmd, title string }{
		{"workers", "Workers"}, {"orphans", "Orphans"}, {"jobtypes", "Job types"}, {"pools", "Pools"}, {"jobs", "Jobs"},
	} {
		m = typeLine(t, m, tc.cmd, "enter")
		if m.opened() || m.focused().title() != tc.title {
			t.Errorf(":%s: focused %s (opened %v)", tc.cmd, m.focused().title(), m.opened())
		}
	}
}

// TestCmdLineCompletesJobName: tab completes a job name from the snapshot.
func TestCmdLineCompletesJobName(t *testing.T) {
	m := cmdScreen(t, false, 100, 30)
	m = typeLine(t, m, "jobtypes res", "tab")
	if got := cmdLineText(m); got != "jobtypes resize_image" {
		t.Fatalf("tab completed %q", got)
	}
	if view := m.View(); !strings.Contains(view, ":jobtypes resize_image") {
		t.Errorf("the line is not on screen:\n%s", view)
	}
	m = drive(t, m, keyMsg("enter"))
	if p, ok := m.selectedJobType(); !ok || p.Name != "resize_image" {
		t.Errorf(":jobtypes resize_image selected %v", p)
	}
	m = step(t, m, snapshotMsg{snap: fixture(), at: fixedNow})
	if p, ok := m.selectedJobType(); !ok || p.Name != "resize_image" {
		t.Errorf("after the next snapshot the cursor is on %v", p)
	}
	// Two candidates that share only what is typed: tab puts in the first
	// and cycles through them.
	m = typeLine(t, m, "where job:re", "tab")
	if got := cmdLineText(m); got != "where job:report" {
		t.Fatalf("tab on report/resize_image gave %q", got)
	}
	m = drive(t, m, keys("tab")...)
	if got := cmdLineText(m); got != "where job:resize_image" {
		t.Errorf("second tab gave %q", got)
	}
	m = drive(t, m, keys("tab")...)
	if got := cmdLineText(m); got != "where job:report" {
		t.Errorf("third tab gave %q", got)
	}
	// A common part longer than what is typed goes in first.
	m = drive(t, m, keys("esc")...)
	m = typeLine(t, m, "j", "tab")
	if got := cmdLineText(m); got != "job" {
		t.Errorf("tab on jobs/jobtypes gave %q", got)
	}
	m = drive(t, m, keys("tab")...)
	if got := cmdLineText(m); got != "jobtypes" {
		t.Errorf("second tab on jobtypes/jobs gave %q", got)
	}
}

// TestCmdLineCompletesDeadPool: :pools offers the pool IDs dead first,
// :reap only the dead ones (it refuses the others), tab completes a dead
// pool's ID, and :reap ID opens the reap dialog of that
// pool (its plan, waiting for y).
func TestCmdLineCompletesDeadPool(t *testing.T) {
	m := cmdScreen(t, false, 100, 30)
	_, ids := m.completions("pools ")
	dead, nDead := map[string]bool{}, 0
	for _, p := range fixture().Pools { // what the screen polls
		dead[p.ID] = p.Status == model.StatusDead
		if dead[p.ID] {
			nDead++
		}
	}
	if drawn := drawnCount(m, "dead"); drawn != nDead {
		t.Fatalf("the header draws %d dead pools, the fixture has %d", drawn, nDead)
	}
	if len(ids) == 0 || nDead == 0 || nDead == len(ids) {
		t.Fatalf("%d pool IDs offered (%d dead): the fixture needs dead and other pools", len(ids), nDead)
	}
	for i := 1; i < len(ids); i++ {
		if dead[ids[i]] && !dead[ids[i-1]] {
			t.Errorf("dead pool %s offered after a live one: %v", ids[i], ids)
		}
	}
	_, reap := m.completions("reap ")
	if len(reap) != nDead {
		t.Errorf(":reap offers %v, want the %d dead pools", reap, nDead)
	}
	for _, id := range reap {
		if !dead[id] {
			t.Errorf(":reap offers the pool %s, which is not dead", id)
		}
	}
	m = typeLine(t, m, "reap aa", "tab")
	if got := cmdLineText(m); got != "reap aaaabbbbccccddddeeeeffff" {
		t.Fatalf("tab completed %q", got)
	}
	m = drive(t, m, keyMsg("enter"))
	if dialogTitle(m) != "Reap 1 dead pool?" || !strings.Contains(dialogText(m), "pool aaaabbbbccccddddeeeeffff") {
		t.Fatalf(":reap ID opened %q:\n%s", dialogTitle(m), dialogText(m))
	}
	if view := m.View(); !strings.Contains(view, "Reap 1 dead pool?") {
		t.Errorf("the dialog is not on screen:\n%s", view)
	}
}

// TestCmdLineActionReason: a command whose action does not apply here
// says why, as its key does, and opens nothing.
func TestCmdLineActionReason(t *testing.T) {
	m := cmdScreen(t, false, 100, 30)
	m = typeLine(t, m, "reap fedcba9876543210fedcba98", "enter")
	if dialogOpen(m) || !strings.Contains(statusOf(m), "x reaps a dead pool") {
		t.Errorf(":reap on a live pool: dialog %v, status %q", dialogOpen(m), statusOf(m))
	}
	m = typeLine(t, m, "pause report", "enter")
	if dialogOpen(m) || statusOf(m) != "pause is not available here" {
		t.Errorf(":pause without a pauser: status %q", statusOf(m))
	}
}

// TestCmdLineReadOnly: in read-only mode the writing commands are not
// offered, and typed they say they are disabled.
func TestCmdLineReadOnly(t *testing.T) {
	m := cmdScreen(t, true, 100, 30)
	_, names := m.completions("")
	for _, w := range []string{"reap", "reap-all", "requeue", "repair", "pause"} {
		if slices.Contains(names, w) {
			t.Errorf("read-only offers %s: %v", w, names)
		}
	}
	if !slices.Contains(names, "pools") || !slices.Contains(names, "jobs") {
		t.Errorf("read-only lacks the views: %v", names)
	}
	m = typeLine(t, m, "rea", "tab")
	if got := cmdLineText(m); got != "rea" {
		t.Errorf("tab on rea in read-only gave %q", got)
	}
	if view := m.View(); strings.Contains(view, "reap") {
		t.Errorf("reap is on screen in read-only:\n%s", view)
	}
	m = drive(t, m, keys("backspace", "backspace", "backspace")...)
	m = drive(t, m, keyMsg("reap"), keyMsg("enter"))
	if dialogOpen(m) || statusOf(m) != "read-only: reap is disabled" {
		t.Errorf(":reap in read-only: dialog %v, status %q", dialogOpen(m), statusOf(m))
	}
	m = typeLine(t, m, "reap-all", "enter")
	if dialogOpen(m) || statusOf(m) != "read-only: reap-all is disabled" {
		t.Errorf(":reap-all in read-only: status %q", statusOf(m))
	}
}

// TestCmdLineUnknown: a wrong command says why in one line, with the
// closest one.
func TestCmdLineUnknown(t *testing.T) {
	m := cmdScreen(t, false, 100, 30)
	m = typeLine(t, m, "poolz", "enter")
	if want := `unknown command "poolz" (did you mean pools?)`; statusOf(m) != want || cmdLineOpen(m) {
		t.Errorf("status %q, want %q (open %v)", statusOf(m), want, cmdLineOpen(m))
	}
	if !strings.Contains(m.View(), `unknown command "poolz" (did you mean pools?)`) {
		t.Errorf("the error is not on screen:\n%s", m.View())
	}
	m = typeLine(t, m, "workers now", "enter")
	if statusOf(m) != ":workers takes no argument" || m.focused().title() == "Workers" {
		t.Errorf(":workers now: status %q, focused %s", statusOf(m), m.focused().title())
	}
}

// TestCmdLineHistoryAndEsc: up and down browse the lines run this
// session; esc closes the line without running it.
func TestCmdLineHistoryAndEsc(t *testing.T) {
	m := cmdScreen(t, false, 100, 30)
	m = typeLine(t, m, "workers", "enter")
	m = typeLine(t, m, "orphans", "enter")
	m = typeLine(t, m, "po", "up")
	if got := cmdLineText(m); got != "orphans" {
		t.Errorf("up: %q", got)
	}
	m = drive(t, m, keys("up")...)
	if got := cmdLineText(m); got != "workers" {
		t.Errorf("up up: %q", got)
	}
	m = drive(t, m, keys("down", "down")...)
	if got := cmdLineText(m); got != "po" {
		t.Errorf("down down: %q, want the draft back", got)
	}
	m = drive(t, m, keys("up", "esc")...)
	if cmdLineOpen(m) || m.focused().title() != "Orphans" {
		t.Errorf("esc: open %v, focused %s", cmdLineOpen(m), m.focused().title())
	}
	// Keys go to the line while it is open: j moves no cursor, q quits not.
	m = typeLine(t, m, "q")
	if !cmdLineOpen(m) || cmdLineText(m) != "q" {
		t.Errorf("q in the line: open %v value %q", cmdLineOpen(m), cmdLineText(m))
	}
}

// TestCmdLineWhere: :where takes a query of the command line's language
// into the Jobs view's filter; a bad one says why and keeps the filter.
func TestCmdLineWhere(t *testing.T) {
	f := deadFixture()
	o, _ := setsOptions(f)
	m := newTest(t, o, 100, 30)
	m = typeLine(t, m, "where job:resize_image", "enter")
	v := jobsView(t, m)
	if !m.setsFocused() || v.jobFilter != "job:resize_image" || f.lastRead().filter.Query.JobName() != "resize_image" || v.total != 12 {
		t.Fatalf(":where job:resize_image: focused %v filter %q read %+v total %d", m.setsFocused(), v.jobFilter, f.lastRead().filter, v.total)
	}
	m = typeLine(t, m, "where err:timeout fails>=3", "enter")
	if v := jobsView(t, m); v.jobFilter != "err:timeout fails>=3" || v.total != 30 {
		t.Errorf(":where err:timeout fails>=3: filter %q total %d, status %q", v.jobFilter, v.total, statusOf(m))
	}
	reads := len(f.reads)
	m = typeLine(t, m, "where jb:x", "enter")
	if !strings.HasPrefix(statusOf(m), "where: bad query") || jobsView(t, m).jobFilter != "err:timeout fails>=3" || len(f.reads) != reads {
		t.Errorf(":where jb:x: status %q, filter %q, %d reads after it", statusOf(m), jobsView(t, m).jobFilter, len(f.reads)-reads)
	}
	m = typeLine(t, m, "where", "enter")
	if jobsView(t, m).jobFilter != "" {
		t.Errorf(":where with no query kept the filter %q", jobsView(t, m).jobFilter)
	}
}

// TestCmdLineNoRawBytes: a job name with a control sequence is not
// offered, and nothing raw reaches the screen.
func TestCmdLineNoRawBytes(t *testing.T) {
	snap := fixture()
	snap.JobTypes = append(snap.JobTypes, model.JobType{Name: "re\x1b[2Jevil"})
	o, _ := testOptions(staticSource(snap))
	m := newTest(t, o, 100, 30)
	m = typeLine(t, m, "pause re")
	_, cands := m.completions(cmdLineText(m))
	if !slices.Equal(cands, []string{"report", "resize_image"}) {
		t.Errorf("completions %q", cands)
	}
	checkScreen(t, m.View(), 100, 30)
}

// TestCmdLineGolden: the open command line with its completions at 80x24.
func TestCmdLineGolden(t *testing.T) {
	m := cmdScreen(t, false, 80, 24)
	m = typeLine(t, m, "re")
	view := m.View()
	checkScreen(t, view, 80, 24)
	golden.RequireEqual(t, []byte(view))
}

// TestCmdLineTarget: on a fleet, :target completes the targets' names and
// shows the one named; q and esc in the line are the line's, not the
// fleet's. On a screen of one Redis there is no :target.
func TestCmdLineTarget(t *testing.T) {
	d := newFleetDriver(t)
	east, _ := fleetTarget("east", staticSource(fixture()), time.Hour)
	west, _ := fleetTarget("west", staticSource(fixture()), time.Hour)
	d.start(east, west)
	d.send(keyMsg("enter"))
	if d.f.open < 0 {
		t.Fatal("enter opened no target")
	}
	other := "west"
	if v := d.f.View(); strings.Contains(v, "west.internal") == strings.Contains(v, "east.internal") {
		t.Fatalf("the opened target's screen shows not one address:\n%s", v)
	} else if strings.Contains(v, "west.internal") {
		other = "east"
	}
	for _, k := range []string{":", "target " + other[:1], "tab"} {
		d.send(keyMsg(k))
	}
	c := d.f.children[d.f.open]
	if got := cmdLineText(*c); got != "target "+other {
		t.Fatalf("tab completed %q", got)
	}
	d.send(keyMsg("q"))
	d.send(keyMsg("esc"))
	if d.quits != 0 || d.f.open < 0 || cmdLineOpen(*d.f.children[d.f.open]) {
		t.Fatalf("q and esc in the line: quits %d, open %d", d.quits, d.f.open)
	}
	for _, k := range []string{":", "target " + other, "enter"} {
		d.send(keyMsg(k))
	}
	if d.f.open < 0 || !strings.Contains(d.f.View(), other+".internal") {
		t.Fatalf(":target %s shows %d:\n%s", other, d.f.open, d.f.View())
	}

	m := cmdScreen(t, false, 100, 30)
	if _, names := m.completions(""); slices.Contains(names, "target") {
		t.Errorf("a single screen offers :target: %v", names)
	}
	m = typeLine(t, m, "target x", "enter")
	if !strings.Contains(statusOf(m), "targets of a fleet") {
		t.Errorf(":target on a single screen: %q", statusOf(m))
	}
}

// TestCmdLineQuitAndHelp: :q quits as q does, :help opens the full help.
func TestCmdLineQuitAndHelp(t *testing.T) {
	m := cmdScreen(t, false, 100, 30)
	m = typeLine(t, m, "help", "enter")
	if !strings.Contains(m.View(), "close help") {
		t.Error(":help did not open the full help")
	}
	m = typeLine(t, m, "q")
	_, cmd := stepCmd(m, keyMsg("enter"))
	quit := false
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			quit = true
		}
	}
	if !quit {
		t.Error(":q did not quit")
	}
}
