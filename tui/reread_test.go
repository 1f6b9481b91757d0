package tui

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// pollNow delivers a poll's snapshot and settles what follows it.
func pollNow(t *testing.T, m Model, at time.Time) Model {
	t.Helper()
	m, cmd := stepCmd(m, current(m, snapshotMsg{snap: fixture(), at: at}))
	return settle(t, m, cmd, 0)
}

// queueTop is the line the queue view draws at the top of its viewport:
// the one under its "jobs #…" line.
func queueTop(m Model) string {
	lines := strings.Split(m.View(), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "jobs #") {
			return lines[i+1]
		}
	}
	return ""
}

// TestQueueFollowsPolls: the queue view reads its page again after each
// poll, one page read each; the job at the top of the viewport stays
// there while the jobs before it run, and the page's line counts what is
// left.
func TestQueueFollowsPolls(t *testing.T) {
	q := queueFixture()
	o, _ := testOptions(staticSource(fixture()))
	o.Reads.Queue = q
	m := openSendEmailQueue(t, o, 100, 30)
	// Down to the fifth job of the page: below the two that will run.
	for i := 0; i < 60 && !strings.Contains(queueTop(m), " id job05"); i++ {
		m = press(t, m, "j")
	}
	top := queueTop(m)
	id := top[strings.Index(top, " id job")+4:][:5]
	if !strings.HasPrefix(id, "job") || strings.Contains(top, "#1 ") {
		t.Fatalf("no job title at the top of the viewport: %q", top)
	}
	reads := len(q.readLog())
	q.mu.Lock()
	q.jobs["send_email"] = q.jobs["send_email"][2:] // two ran
	q.mu.Unlock()
	m = pollNow(t, m, fixedNow)
	if got := q.readLog(); len(got) != reads+1 || got[len(got)-1] != "send_email 0 20" {
		t.Fatalf("reads after a poll: %q", got[reads:])
	}
	if now := queueTop(m); !strings.Contains(now, " id "+id) {
		t.Errorf("the top of the viewport moved from %s to %q", id, now)
	}
	if view := m.View(); !strings.Contains(view, "jobs #1–#20 of 43") || strings.Contains(view, "reading") {
		t.Errorf("after the re-read:\n%s", view)
	}
	// Only the view on screen follows: back on the Job types view, a
	// poll reads no queue.
	m = press(t, m, "esc")
	reads = len(q.readLog())
	pollNow(t, m, fixedNow)
	if len(q.readLog()) != reads {
		t.Errorf("a queue not on screen was read: %q", q.readLog()[reads:])
	}
}

// TestDetailFollowsPolls: a pool's detail peeks at its jobs again after
// each poll, and says so when its jobs are older than the header.
func TestDetailFollowsPolls(t *testing.T) {
	now := fixedNow
	o, _ := testOptions(staticSource(fixture()))
	o.Now = func() time.Time { return now }
	peek := o.Reads.Peek.(fakePeeker)
	m := newTest(t, o, 100, 40)
	m = step(t, m, keyMsg("j"))
	m = press(t, m, "enter")
	if !strings.Contains(m.View(), "#1 resize_image") || strings.Contains(m.View(), "id new1") {
		t.Fatalf("detail:\n%s", m.View())
	}
	key := "6f1a2b3c4d5e6f7a8b9c0d1e/send_email"
	peek.jobs[key] = append(peek.jobs[key], `{"name":"send_email","id":"new1","t":1795964400,"args":{}}`)
	now = now.Add(2 * time.Second)
	m = pollNow(t, m, now)
	if view := m.View(); !strings.Contains(view, "id new1") || strings.Contains(view, "as of") {
		t.Errorf("the detail did not follow the poll:\n%s", view)
	}
	// A poll whose re-read has not returned: the jobs say how old they
	// are.
	now = now.Add(5 * time.Second)
	m, _ = stepCmd(m, current(m, snapshotMsg{snap: fixture(), at: now}))
	if view := m.View(); !strings.Contains(view, "in-progress jobs as of 5s ago") {
		t.Errorf("no note of the jobs' age:\n%s", view)
	}
}

// TestQueueSaysWhenOlder: a re-read of the queue that fails keeps the
// jobs shown and says how much older than the header they are.
func TestQueueSaysWhenOlder(t *testing.T) {
	now := fixedNow
	q := queueFixture()
	o, _ := testOptions(staticSource(fixture()))
	o.Now = func() time.Time { return now }
	o.Reads.Queue = q
	m := openSendEmailQueue(t, o, 100, 30)
	q.mu.Lock()
	q.err = errors.New("i/o timeout")
	q.mu.Unlock()
	now = now.Add(4 * time.Second)
	m = pollNow(t, m, now)
	view := m.View()
	for _, want := range []string{"queue as of 4s ago: could not read the queue: i/o timeout", "#1 send_email"} {
		if !strings.Contains(view, want) {
			t.Errorf("the view lacks %q:\n%s", want, view)
		}
	}
	q.mu.Lock()
	q.err = nil
	q.mu.Unlock()
	now = now.Add(time.Second)
	m = pollNow(t, m, now)
	if view := m.View(); strings.Contains(view, "as of") || !strings.Contains(view, "jobs #1–#20 of 45") {
		t.Errorf("after a good re-read:\n%s", view)
	}
}
