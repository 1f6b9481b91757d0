package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// fakeExplainer explains with the model's own checks on the fixture (no
// set facts), and records what it was asked.
type fakeExplainer struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (f *fakeExplainer) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeExplainer) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeExplainer) ExplainJob(_ context.Context, job string) (model.Explanation, error) {
	f.record(job)
	if f.err != nil {
		return model.Explanation{}, f.err
	}
	return model.Explain(fixture(), model.ExplainFacts{UniqueScanned: true}, job), nil
}

func (f *fakeExplainer) ExplainPool(_ context.Context, id string) (model.PoolExplanation, error) {
	f.record("pool " + id)
	if f.err != nil {
		return model.PoolExplanation{}, f.err
	}
	return model.ExplainPool(fixture(), id), nil
}

func (f *fakeExplainer) FixCommand(fix []string) string {
	if len(fix) == 0 {
		return ""
	}
	return "workq-tui --redis redis.internal:6379 " + strings.Join(fix, " ")
}

// explainOptions is the test screen offering the explanations of x and
// the timeline of tl, pausing through a fake pauser.
func explainOptions(x *fakeExplainer, tl *fakeTimeline) Options {
	o, _ := testOptions(staticSource(fixture()))
	o.Reads.Explain, o.Reads.Timeline, o.Reads.Commands = x, tl, fakeCommands{}
	o.Writes.Pause = &fakePauser{}
	return o
}

func explainOf(t *testing.T, m Model) explainView {
	t.Helper()
	v, ok := m.top().(explainView)
	if !ok {
		t.Fatalf("the view on top is %T, not an explanation", m.top())
	}
	return v
}

// e on a paused job type: the verdict, the fix's command line and its key,
// and that key (p) opens the unpause dialog of that type right there; r
// reads the explanation again.
func TestExplainJobType(t *testing.T) {
	x := &fakeExplainer{}
	m := newTest(t, explainOptions(x, &fakeTimeline{}), 100, 30)
	m = selectJobType(t, m, "resize_image")
	m = press(t, m, "e")
	v := explainOf(t, m)
	if v.subject.job != "resize_image" {
		t.Fatalf("e explains %+v", v.subject)
	}
	view := m.View()
	for _, want := range []string{"! resize_image is paused", "fix: workq-tui --redis redis.internal:6379 unpause resize_image", "here: p unpauses it"} {
		if !strings.Contains(view, want) {
			t.Errorf("the explanation lacks %q:\n%s", want, view)
		}
	}
	if got := x.asked(); len(got) != 1 || got[0] != "resize_image" {
		t.Errorf("the explainer was asked %q", got)
	}
	m = press(t, m, "r")
	if got := x.asked(); len(got) != 2 {
		t.Errorf("r read the explanation %d times in all, want 2", len(got))
	}
	m = press(t, m, "p")
	if !dialogOpen(m) || !strings.Contains(m.View(), "Unpause resize_image?") {
		t.Errorf("p on the explanation did not open the unpause dialog:\n%s", m.View())
	}
}

// e on a dead pool explains the pool, with x to reap it; on a queue it
// explains the queue's job type; e on the explanation reads it again.
func TestExplainPoolAndQueue(t *testing.T) {
	x := &fakeExplainer{}
	o := explainOptions(x, &fakeTimeline{})
	o.Reads.Queue = queueFixture()
	m := newTest(t, o, 100, 30)
	m = toView(t, m, "Pools")
	m = press(t, m, "g")
	for i := 0; i < 10; i++ {
		if p, ok := m.selectedPool(); ok && p.ID == "aaaabbbbccccddddeeeeffff" {
			break
		}
		m = press(t, m, "j")
	}
	m = press(t, m, "e")
	view := m.View()
	for _, want := range []string{"pool aaaabbbbccccddddeeeeffff is dead", "fix: workq-tui --redis redis.internal:6379 reap aaaabbbbccccddddeeeeffff", "here: x reaps it"} {
		if !strings.Contains(view, want) {
			t.Errorf("the pool's explanation lacks %q:\n%s", want, view)
		}
	}
	m = press(t, m, "e")
	if got := x.asked(); len(got) != 2 || got[1] != "pool aaaabbbbccccddddeeeeffff" || openDepth(t, m) != 1 {
		t.Errorf("e on the explanation: asked %q, %d views open", got, openDepth(t, m))
	}

	m = press(t, m, "esc")
	m = press(t, selectJobType(t, m, "send_email"), "enter")
	if v := m.View(); !strings.Contains(v, "queue send_email") {
		t.Fatalf("enter on send_email did not open its queue:\n%s", v)
	}
	m = press(t, m, "e")
	if v := explainOf(t, m); v.subject.job != "send_email" {
		t.Errorf("e on the queue of send_email explains %+v", v.subject)
	}
}

// e is a read: it works in read-only mode. Without the offer, or without
// anything to explain under the cursor, it says so.
func TestExplainReadOnlyAndUnavailable(t *testing.T) {
	o := explainOptions(&fakeExplainer{}, &fakeTimeline{})
	o.ReadOnly = true
	m := newTest(t, o, 100, 30)
	m = selectJobType(t, m, "send_email")
	m = press(t, m, "e")
	if v := explainOf(t, m); !strings.Contains(m.View(), "fix: workq-tui") || strings.Contains(m.View(), "here: ") || v.subject.job != "send_email" {
		t.Errorf("e in read-only mode shows the fix, not the keys that write:\n%s", m.View())
	}

	o, _ = testOptions(staticSource(fixture()))
	m = newTest(t, o, 100, 30)
	m = selectJobType(t, m, "send_email")
	m = press(t, m, "e")
	if m.opened() || statusOf(m) != "explain is not available here" {
		t.Errorf("e without an explainer: opened %v, status %q", m.opened(), statusOf(m))
	}

	m = newTest(t, explainOptions(&fakeExplainer{}, &fakeTimeline{}), 100, 30)
	m = toView(t, m, "Orphans")
	m = press(t, m, "e")
	if m.opened() || !strings.Contains(statusOf(m), "explains the selected job type or pool") {
		t.Errorf("e with nothing selected: opened %v, status %q", m.opened(), statusOf(m))
	}
}

// A failed read says so in the verdict line, and the next one clears it.
func TestExplainError(t *testing.T) {
	x := &fakeExplainer{err: errRefused}
	m := newTest(t, explainOptions(x, &fakeTimeline{}), 100, 30)
	m = selectJobType(t, m, "report")
	m = press(t, m, "e")
	if view := m.View(); !strings.Contains(view, "could not explain report: dial tcp") {
		t.Errorf("a failed read:\n%s", view)
	}
	x.mu.Lock()
	x.err = nil
	x.mu.Unlock()
	m = press(t, m, "r")
	if view := m.View(); strings.Contains(view, "could not explain") || !strings.Contains(view, "report") {
		t.Errorf("the read after it:\n%s", view)
	}
}

// :explain NAME explains a job type, or a pool by its ID; the job names
// complete; an unknown name is explained as such, as the CLI does.
func TestCmdLineExplain(t *testing.T) {
	x := &fakeExplainer{}
	m := newTest(t, explainOptions(x, &fakeTimeline{}), 100, 30)
	m = typeLine(t, m, "explain res", "tab")
	if got := cmdLineText(m); got != "explain resize_image" {
		t.Fatalf("tab completed %q", got)
	}
	m = drive(t, m, keyMsg("enter"))
	if v := explainOf(t, m); v.subject.job != "resize_image" {
		t.Errorf(":explain resize_image explains %+v", v.subject)
	}
	m = typeLine(t, m, "explain 0123456789abcdef01234567", "enter")
	if v := explainOf(t, m); v.subject.pool != "0123456789abcdef01234567" {
		t.Errorf(":explain POOL_ID explains %+v", v.subject)
	}
	m = typeLine(t, m, "explain send_emial", "enter")
	if !strings.Contains(m.View(), "send_emial is in neither known_jobs nor any heartbeat") {
		t.Errorf(":explain of a typo:\n%s", m.View())
	}

	o, _ := testOptions(staticSource(fixture()))
	m = newTest(t, o, 100, 30)
	m = typeLine(t, m, "explain send_email", "enter")
	if m.opened() || statusOf(m) != "explain is not available here" {
		t.Errorf(":explain without an explainer: status %q", statusOf(m))
	}
}

func TestGoldenExplain(t *testing.T) {
	tests := []struct {
		name   string
		script []any
	}{
		{name: "explain_job", script: []any{waitText("worker-a"), keyMsg("tab"), keyMsg("G"), keyMsg("e"), waitText("fix:")}},
		{name: "explain_pool", script: []any{waitText("worker-a"), keyMsg("j"), keyMsg("e"), waitText("fix:")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view := runProgram(t, explainOptions(&fakeExplainer{}, &fakeTimeline{}), 80, 24, tc.script...)
			checkScreen(t, view, 80, 24)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// A fix too wide for the view breaks at spaces outside quotes, each line
// but the last ending in a backslash: joined again it is the command.
func TestPasteLines(t *testing.T) {
	cmd := "workq-tui --redis r:6379 --namespace 'my ns' jobs retry requeue --all --job send_email"
	for _, w := range []int{20, 40, 60, 200} {
		lines := pasteLines(cmd, w)
		for i, l := range lines {
			if i < len(lines)-1 && !strings.HasSuffix(l, " \\") {
				t.Errorf("width %d: line %d %q has no backslash", w, i, l)
			}
			// Only a single word wider than the width may overflow.
			if oneWord := !strings.Contains(strings.TrimSuffix(l, " \\"), " "); lineWidth(l) > w && !oneWord {
				t.Errorf("width %d: line %d %q is %d wide", w, i, l, lineWidth(l))
			}
		}
		if got := strings.Join(lines, "\n"); strings.ReplaceAll(got, " \\\n", " ") != cmd || !strings.Contains(got, "'my ns'") {
			t.Errorf("width %d: %q", w, lines)
		}
		if w == 200 && len(lines) != 1 {
			t.Errorf("width 200: %q", lines)
		}
	}
}
