package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// topJobLine is the first line of the queue view's viewport.
func topJobLine(q queueView) string {
	return strings.SplitN(q.vp.View(), "\n", 2)[0]
}

// TestQueueReloadKeepsPlace: the re-read that follows an action (and r)
// keeps the job at the top of the viewport there, though the jobs before
// it have gone.
func TestQueueReloadKeepsPlace(t *testing.T) {
	f := queueFixture()
	q := newQueueView(1, "send_email", fixture(), defaultKeyMap(), f, time.Second)
	v, _ := q.setSize(80, 20).(queueView)
	nv, cmd := v.update(loadMsg{})
	nv, _ = nv.update(cmd())
	v = nv.(queueView)
	_, starts := queueJobLines(v.page, v.job, v.redisTime, v.width)
	v.vp.SetYOffset(starts[6])
	if got := topJobLine(v); !strings.Contains(got, "job06") {
		t.Fatalf("the viewport's top is %q, want job06", got)
	}
	f.mu.Lock()
	f.jobs["send_email"] = f.jobs["send_email"][4:] // four jobs ran, or were taken
	f.mu.Unlock()
	nv, cmd = v.update(loadMsg{})
	nv, _ = nv.update(cmd())
	v = nv.(queueView)
	if got := topJobLine(v); !strings.Contains(got, "#3 ") || !strings.Contains(got, "job06") {
		t.Fatalf("after the re-read the viewport's top is %q, want job06, now #3", got)
	}
}

// QueueFilterPage of the fake walks the whole queue as the program's does.
func (f *fakeQueue) QueueFilterPage(_ context.Context, job string, q *model.Query, offset, limit int) (redisq.QueuePage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, fmt.Sprintf("%s where %s %d %d", job, q.Text, offset, limit))
	page := redisq.QueuePage{JobName: job, Offset: offset, Limit: limit}
	for i, raw := range f.jobs[job] {
		j := model.ParseJob(raw)
		if j.ParseErr != nil && j.ID == "" || !q.MatchQueueJob(&j.JobFields) {
			continue
		}
		if page.Length >= int64(offset) && len(page.Jobs) < limit {
			page.Jobs = append(page.Jobs, redisq.QueuedJob{Position: int64(i), Job: j})
		}
		page.Length++
	}
	return page, nil
}

// typeKeys presses each character of s.
func typeKeys(t *testing.T, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		m = press(t, m, string(r))
	}
	return m
}

// TestQueueQuery: '/' in the queue view takes a query of the Jobs view's
// language (':' and every other key is text while it is typed); a bad
// one is one line in the status line and reads nothing; A marks what it
// matches; esc takes the marks away, then the query, then closes the view.
func TestQueueQuery(t *testing.T) {
	f := queueFixture()
	o, _ := testOptions(staticSource(fixture()))
	o.Reads.Queue, o.Reads.QueueFilter = f, f
	m := openSendEmailQueue(t, o, 80, 24)
	m = press(t, m, "A")
	if dialogOpen(m) || !strings.Contains(m.View(), "A marks every job the query matches: type a query with /") {
		t.Fatalf("A without a query:\n%s", m.View())
	}
	m = typeKeys(t, press(t, m, "/"), "args.i:7")
	if cmdLineOpen(m) || !strings.Contains(m.View(), "/args.i:7") {
		t.Fatalf("typing the query:\n%s", m.View())
	}
	m = press(t, m, "enter")
	reads := f.readLog()
	if got := reads[len(reads)-1]; got != "send_email where args.i:7 0 20" {
		t.Fatalf("the read of the query: %q", got)
	}
	if view := m.View(); !strings.Contains(view, "1–1 of 1 matching args.i:7") || !strings.Contains(view, "#8 send_email  id job07") {
		t.Fatalf("the queue under the query:\n%s", view)
	}
	m = press(t, m, "/")
	m, _ = stepCmd(m, tea.KeyMsg{Type: tea.KeyCtrlU})
	m = press(t, typeKeys(t, m, "erorr:x"), "enter")
	if len(f.readLog()) != len(reads) || !strings.Contains(m.View(), "bad query") || !strings.Contains(m.View(), "matching args.i:7") {
		t.Fatalf("a bad query read %q or did not say why:\n%s", f.readLog()[len(reads):], m.View())
	}
	m = press(t, m, "A")
	if !strings.Contains(m.View(), "all 1 matching marked") {
		t.Fatalf("A:\n%s", m.View())
	}
	m = press(t, m, "esc")
	if view := m.View(); strings.Contains(view, "marked") || !strings.Contains(view, "matching args.i:7") {
		t.Fatalf("the first esc:\n%s", view)
	}
	m = press(t, m, "esc")
	if view := m.View(); !strings.Contains(view, "jobs #1–#20 of 45") {
		t.Fatalf("the second esc:\n%s", view)
	}
	m = press(t, m, "esc")
	if m.opened() {
		t.Fatal("the third esc did not close the queue view")
	}
}

// TestQueueRunsAs: a stand-in whose unique key holds another job says
// which one runs, with that job's arguments, cleaned.
func TestQueueRunsAs(t *testing.T) {
	held := model.ParseJob(`{"name":"sync_account","id":"rewritten9","t":3,"args":{"acct":"\u001b[2J1"}}`)
	page := redisq.QueuePage{Length: 2, Jobs: []redisq.QueuedJob{
		{Position: 0, Job: model.ParseJob(`{"name":"sync_account","id":"stand-in1","t":1,"args":{"acct":1}}`), RunsAs: &held},
		{Position: 1, Job: model.ParseJob(`{"name":"sync_account","id":"plain2","t":2,"args":{"acct":2}}`)},
	}}
	got := renderQueueJobs(page, "sync_account", time.Unix(10, 0), 120)
	if strings.Count(got, "runs as") != 1 || !strings.Contains(got, "runs as id rewritten9: the job its unique key holds") ||
		!strings.Contains(got, `args: {"acct":"\u001b[2J1"}`) {
		t.Fatalf("runs as:\n%s", got)
	}
	if strings.Contains(got, "\x1b") {
		t.Fatalf("raw escape drawn:\n%q", got)
	}
}
