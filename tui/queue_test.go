package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// fakeQueue is a queue per job type, members in run order; it records
// every page read.
type fakeQueue struct {
	mu    sync.Mutex
	jobs  map[string][]string
	reads []string // "job offset limit"
	// err, when set, is the error of every read.
	err error
}

func (f *fakeQueue) QueuePage(_ context.Context, job string, offset, limit int) (redisq.QueuePage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, fmt.Sprintf("%s %d %d", job, offset, limit))
	if f.err != nil {
		return redisq.QueuePage{}, f.err
	}
	all := f.jobs[job]
	page := redisq.QueuePage{JobName: job, Offset: offset, Limit: limit, Length: int64(len(all))}
	for i := offset; i < len(all) && i < offset+limit; i++ {
		page.Jobs = append(page.Jobs, redisq.QueuedJob{Position: int64(i), Job: model.ParseJob(all[i])})
	}
	return page, nil
}

func (f *fakeQueue) readLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reads...)
}

// queueFixture: send_email holds 45 jobs, the first with control
// characters in its args, the second not JSON at all.
func queueFixture() *fakeQueue {
	var jobs []string
	jobs = append(jobs,
		`{"name":"send_email","id":"b1c2d3e4f5a6b7c8d9e0f1a2","t":1795964200,"args":{"to":"ops@example.com\u001b[2J","body":"line1\nline2","who":"`+"\u202eevil\u009b31m"+`"}}`,
		"not json \x1b]0;title\x07")
	for i := 2; i < 45; i++ {
		jobs = append(jobs, fmt.Sprintf(`{"name":"send_email","id":"job%02d","t":%d,"args":{"i":%d}}`, i, 1795964300+i, i))
	}
	return &fakeQueue{jobs: map[string][]string{"send_email": jobs}}
}

// press applies a key, runs the commands it returns and applies their
// messages, and so on for the commands those return; timers are dropped.
func press(t *testing.T, m Model, k string) Model {
	t.Helper()
	m, cmd := stepCmd(m, keyMsg(k))
	return settle(t, m, cmd, 0)
}

func settle(t *testing.T, m Model, cmd tea.Cmd, depth int) Model {
	t.Helper()
	if depth > 10 {
		t.Fatal("commands never settle")
	}
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(scheduled); ok {
			continue
		}
		var next tea.Cmd
		m, next = stepCmd(m, msg)
		m = settle(t, m, next, depth+1)
	}
	return m
}

// openSendEmailQueue goes to the Job types view, selects send_email (the
// third row) and presses enter.
func openSendEmailQueue(t *testing.T, o Options, w, h int) Model {
	t.Helper()
	m := toView(t, newTest(t, o, w, h), "Job types")
	m = step(t, m, keyMsg("G"))
	if jt, ok := pickedJobType(m.focused()); !ok || jt.Name != "send_email" {
		t.Fatalf("selected %+v", jt)
	}
	if !m.keyMap().get(actions.Enter).Enabled() {
		t.Fatal("enter not enabled on a job type")
	}
	return press(t, m, "enter")
}

func TestQueueViewPages(t *testing.T) {
	q := queueFixture()
	o, _ := testOptions(staticSource(fixture()))
	o.Reads.Queue = q
	m := openSendEmailQueue(t, o, 100, 30)
	view := m.View()
	for _, want := range []string{"queue send_email  length 1234  latency 45s  lock/max 9/10", "jobs #1–#20 of 45 in run order", "#1 send_email  id b1c2d3e4f5a6b7c8d9e0f1a2", `"to": "ops@example.com\u001b[2J"`, `"who": "\u202eevil\u009b31m"`, `#2 send_email: not a JSON job`} {
		if !strings.Contains(view, want) {
			t.Errorf("queue view lacks %q:\n%s", want, view)
		}
	}
	checkScreen(t, view, 100, 30)

	k := m.keyMap()
	if k.get(actions.PageUp).Enabled() || !k.get(actions.PageDown).Enabled() || !k.get(actions.Back).Enabled() || k.get(actions.Filter).Enabled() || k.get(actions.Enter).Enabled() {
		t.Errorf("keys on the first page: pgup %v pgdn %v esc %v / %v enter %v", k.get(actions.PageUp).Enabled(), k.get(actions.PageDown).Enabled(), k.get(actions.Back).Enabled(), k.get(actions.Filter).Enabled(), k.get(actions.Enter).Enabled())
	}
	m = press(t, m, "pgdown")
	m = press(t, m, "pgdown")
	if view := m.View(); !strings.Contains(view, "jobs #41–#45 of 45") || !strings.Contains(view, "#41 send_email  id job40") {
		t.Errorf("third page header:\n%s", m.View())
	}
	// The last page: pgdn reads nothing.
	if m.keyMap().get(actions.PageDown).Enabled() {
		t.Error("pgdn enabled on the last page")
	}
	m = press(t, m, "pgdown")
	m = press(t, m, "pgup")
	if !strings.Contains(m.View(), "jobs #21–#40 of 45") {
		t.Errorf("pgup:\n%s", m.View())
	}
	m = press(t, m, "r")
	want := []string{"send_email 0 20", "send_email 20 20", "send_email 40 20", "send_email 20 20", "send_email 20 20"}
	if got := q.readLog(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("reads %q, want %q", got, want)
	}
	m = press(t, m, "esc")
	if view := m.View(); strings.Contains(view, "queue send_email") || !strings.Contains(view, "[Job types]") || focusedJobType(m).Name != "send_email" {
		t.Errorf("esc did not go back to the job types:\n%s", view)
	}
}

// TestQueuePageOfOldReadDropped: a page that arrives after a newer read
// started is not shown.
func TestQueuePageOfOldReadDropped(t *testing.T) {
	q := queueFixture()
	o, _ := testOptions(staticSource(fixture()))
	o.Reads.Queue = q
	m := openSendEmailQueue(t, o, 100, 30)
	m, first := stepCmd(m, keyMsg("pgdown"))
	m, second := stepCmd(m, keyMsg("r"))
	if first == nil || second == nil {
		t.Fatal("no read started")
	}
	old := first()
	for _, msg := range runCmd(second) {
		m = step(t, m, msg)
	}
	m = step(t, m, old)
	if view := m.View(); !strings.Contains(view, "jobs #21–#40 of 45") || strings.Contains(view, "reading…") {
		t.Errorf("the older page is shown, or the newer one is still read:\n%s", view)
	}
}

func TestQueueWithoutReader(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	m := toView(t, newTest(t, o, 100, 30), "Job types")
	m = press(t, m, "enter")
	if view := m.View(); strings.Contains(view, "queue send_email") || !strings.Contains(view, "queue contents are not available here") {
		t.Errorf("enter without a queue reader:\n%s", view)
	}
}

func TestGoldenQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"queue", 80, 24, nil},
		{"queue_page2", 80, 24, []string{"pgdown", "j"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := testOptions(staticSource(fixture()))
			o.Reads.Queue = queueFixture()
			m := openSendEmailQueue(t, o, tc.w, tc.h)
			for _, k := range tc.keys {
				m = press(t, m, k)
			}
			view := m.View()
			checkScreen(t, view, tc.w, tc.h)
			if strings.ContainsAny(view, "\x07\x1b\u009b\u202e") {
				t.Errorf("a control character reached the screen:\n%q", view)
			}
			golden.RequireEqual(t, []byte(view))
		})
	}
}

func TestRenderQueueHeader(t *testing.T) {
	st := newStyles(asciiRenderer(), defaultTheme())
	base := newQueueView(1, "send_email", fixture(), defaultKeyMap(), nil, 0)
	tests := []struct {
		name string
		q    func(q queueView) queueView
		want []string
	}{
		{"loading", func(q queueView) queueView { return q.startLoad(0, 1) }, []string{"length 1234  latency 45s  lock/max 9/10", "reading the queue…"}},
		{"error", func(q queueView) queueView {
			q = q.startLoad(0, 1)
			return q.setPage(queuePageMsg{view: 1, job: "send_email", seq: 1, err: fmt.Errorf("read queue \x1b[2J: WRONGTYPE")})
		}, []string{`could not read the queue: read queue \x1b[2J: WRONGTYPE`}},
		{"empty", func(q queueView) queueView {
			q = q.startLoad(0, 1)
			return q.setPage(queuePageMsg{view: 1, job: "send_email", seq: 1, page: redisq.QueuePage{}})
		}, []string{"the queue is empty"}},
		{"past the end", func(q queueView) queueView {
			q = q.startLoad(40, 1)
			return q.setPage(queuePageMsg{view: 1, job: "send_email", seq: 1, page: redisq.QueuePage{Offset: 40, Length: 12}})
		}, []string{"nothing at #41: the queue holds 12 now"}},
		{"another queue's page", func(q queueView) queueView {
			q = q.startLoad(0, 1)
			return q.setPage(queuePageMsg{job: "report", seq: 1, page: redisq.QueuePage{Length: 5}})
		}, []string{"reading the queue…"}},
		{"paused", func(q queueView) queueView {
			s := fixture()
			s.JobTypes[2].Paused = true
			return q.follow(s)
		}, []string{"queue send_email  PAUSED  length"}},
		{"gone", func(q queueView) queueView {
			s := fixture()
			s.JobTypes = s.JobTypes[:2]
			return q.follow(s)
		}, []string{"queue send_email  no longer a job type of the namespace"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := renderQueueHeader(tc.q(base), 80, st)
			if n := strings.Count(got, "\n"); n != queueHeaderLines-1 {
				t.Errorf("%d lines", n+1)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("header lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
