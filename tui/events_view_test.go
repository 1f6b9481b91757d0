package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// changedFixture is the fixture one poll later: a late pool died, a dead
// one was reaped, a pool appeared, report's locks drifted and its queue
// jumped, send_email's queue emptied.
func changedFixture() *model.Snapshot {
	s := fixture()
	s.RedisTime = s.RedisTime.Add(2 * time.Second)
	var pools []model.Pool
	for _, p := range s.Pools {
		switch p.ID {
		case "aaaabbbbccccddddeeeeffff":
			continue // reaped
		case "0123456789abcdef01234567":
			p.Status = model.StatusDead
		}
		pools = append(pools, p)
	}
	pools = append(pools, model.Pool{ID: "99\x1b[2J998888777766660000", Status: model.StatusAlive})
	s.Pools = pools
	for i := range s.JobTypes {
		switch s.JobTypes[i].Name {
		case "report":
			s.JobTypes[i].Drift, s.JobTypes[i].Queued = true, 500
		case "send_email":
			s.JobTypes[i].Queued = 0
		}
	}
	return s
}

// TestEventsViewListsWhatChanged: E opens the events, which start empty;
// the next poll's changes are listed, newest first, with the time of the
// poll, and nothing from Redis reaches the screen raw; esc closes it.
func TestEventsViewListsWhatChanged(t *testing.T) {
	src := &fakeSource{next: func(call int) (*model.Snapshot, error) {
		if call == 1 {
			return fixture(), nil
		}
		return changedFixture(), nil
	}}
	o, _ := testOptions(src)
	m := newTest(t, o, 100, 30)
	m = drive(t, m, keys("E")...)
	view := m.View()
	if !strings.Contains(view, "[Pools › events]") || !strings.Contains(view, "nothing yet") {
		t.Fatalf("E did not open the events:\n%s", view)
	}
	m = drive(t, m, keys("r")...)
	view = m.View()
	at := changedFixture().RedisTime.UTC().Format("15:04:05")
	for _, want := range []string{
		at + "  pool 0123456789ab… died",
		at + `  pool 99\x1b[2J998888… appeared (alive)`,
		at + "  pool aaaabbbbcccc… was reaped",
		at + "  locks of report drifted (lock 2, 2 in progress)",
		at + "  queue report jumped 0 -> 500",
		at + "  queue send_email jumped 1234 -> 0",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("the events lack %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "\x1b[2J") {
		t.Fatalf("a pool ID reached the screen raw:\n%q", view)
	}
	if strings.Contains(view, "nothing yet") {
		t.Errorf("the events still say nothing happened:\n%s", view)
	}
	m = drive(t, m, keys("esc")...)
	if strings.Contains(m.View(), "[Pools › events]") {
		t.Errorf("esc left the events open:\n%s", m.View())
	}
}

// TestSnapshotEventsFailingAndBack: a job type that starts failing, one
// that stops, a pool back from the dead and one that left cleanly; the
// same snapshot twice is no event.
func TestSnapshotEventsFailingAndBack(t *testing.T) {
	a, b := fixture(), fixture()
	a.Jobs = &model.JobHealth{Problems: []model.JobProblem{{Kind: model.FindingFailing, Job: "report"}}}
	b.Jobs = &model.JobHealth{Problems: []model.JobProblem{{Kind: model.FindingFailing, Job: "send_email"}}}
	for i := range a.Pools {
		if a.Pools[i].ID == "6f1a2b3c4d5e6f7a8b9c0d1e" {
			b.Pools[i].Status = model.StatusAlive // beat again
		}
	}
	b.Pools = b.Pools[:len(b.Pools)-1]
	left := a.Pools[len(a.Pools)-1]
	got := strings.Join(snapshotEvents(a, b), "\n")
	for _, want := range []string{"report stopped failing", "send_email started failing",
		"pool 6f1a2b3c4d5e… is back (alive)", "pool " + model.ShortID(left.ID) + " left"} {
		if !strings.Contains(got, want) {
			t.Errorf("events lack %q:\n%s", want, got)
		}
	}
	if ev := snapshotEvents(a, a); len(ev) != 0 {
		t.Errorf("a snapshot against itself: %q", ev)
	}
}
