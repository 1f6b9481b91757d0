package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// poll delivers a poll's snapshot, as the poll command returns it, with
// the sizes of f's sets, and runs what follows it.
func poll(t *testing.T, m Model, f *fakeSets, at time.Time) Model {
	t.Helper()
	s := fixture()
	c, _ := f.SetCounts(context.Background())
	s.Sets = c
	return drive(t, m, current(m, snapshotMsg{snap: s, at: at}))
}

// remove takes the member of set with job id out of the fake.
func (f *fakeSets) remove(set model.SetName, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var keep []model.SetJob
	for _, sj := range f.sets[set] {
		if sj.Job == nil || sj.Job.ID != id {
			keep = append(keep, sj)
		}
	}
	f.sets[set] = keep
}

func (f *fakeSets) readCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reads)
}

// TestSetsPageFollowsPolls: while the Jobs view is on screen, each poll
// is followed by one read of its page (no scan, no other set): a death
// that came in appears at the top, one that left disappears, the cursor
// stays on its member, the marks stay, and the title line says how many
// came in above while the cursor is held away from the top.
func TestSetsPageFollowsPolls(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	// Mark the fourth row, the cursor on the fifth.
	m = drive(t, m, keys("j", "j", "j", " ")...)
	v := jobsView(t, m)
	under, marked := cursorID(t, v), pageIDs(v)[3]
	gone := pageIDs(v)[6]
	if len(v.marked) != 1 || v.list.cursor != 4 {
		t.Fatalf("marks %d, cursor %d", len(v.marked), v.list.cursor)
	}

	f.addJob(model.SetDead, "charge_card", "cc1", 5, "gateway timeout after 30s (HTTP 504)")
	f.addJob(model.SetDead, "charge_card", "cc2", 4, "gateway timeout after 30s (HTTP 504)")
	f.remove(model.SetDead, gone)
	reads := f.readCount()
	m = poll(t, m, f, fixedNow)
	if n := f.readCount() - reads; n != 1 {
		t.Fatalf("%d reads after a poll, want 1", n)
	}
	if r := f.lastRead(); r.set != model.SetDead || r.opts != (redisq.PageOptions{Limit: setsPageSize}) || !r.filter.Empty() {
		t.Errorf("the re-read is not the page's: %+v", r)
	}
	v = jobsView(t, m)
	if ids := pageIDs(v); ids[0] != "cc2" || ids[1] != "cc1" {
		t.Errorf("the new deaths are not at the top: %v", ids)
	}
	if got := cursorID(t, v); got != under || v.list.cursor != 6 {
		t.Errorf("cursor on %s (row %d), want %s two rows lower", got, v.list.cursor, under)
	}
	if strings.Contains(strings.Join(pageIDs(v), " "), gone) {
		t.Errorf("%s left the set and is still listed", gone)
	}
	if len(v.marked) != 1 || v.total != 46 || v.counts.Dead != 46 {
		t.Errorf("marks %d, total %d, dead %d", len(v.marked), v.total, v.counts.Dead)
	}
	view := m.View()
	for _, want := range []string{"1 marked", "2 new since opened", "dead 46", "1-20 of 46"} {
		if !strings.Contains(view, want) {
			t.Errorf("the view lacks %q:\n%s", want, view)
		}
	}
	if !markedLine(view, marked) {
		t.Errorf("the mark of %s is not shown:\n%s", marked, view)
	}

	// A poll with nothing new reads the page once more and moves nothing.
	m = poll(t, m, f, fixedNow)
	if v2 := jobsView(t, m); f.readCount()-reads != 2 || cursorID(t, v2) != under || v2.poll.fresh != 2 {
		t.Errorf("second poll: %d reads, cursor %s, %d new", f.readCount()-reads, cursorID(t, v2), v2.poll.fresh)
	}
	// At the top, the new ones are in sight: the count goes away, and
	// counts again from there.
	m = drive(t, m, keys("g")...)
	if strings.Contains(m.View(), "new since opened") {
		t.Errorf("the count of new members stays at the top:\n%s", m.View())
	}
	f.addJob(model.SetDead, "charge_card", "cc3", 3, "gateway timeout after 30s (HTTP 504)")
	m = poll(t, m, f, fixedNow)
	if v := jobsView(t, m); cursorID(t, v) != "cc2" || v.poll.fresh != 1 || !strings.Contains(m.View(), "1 new since opened") {
		t.Errorf("after g and one more death: cursor %s, %d new:\n%s", cursorID(t, v), v.poll.fresh, m.View())
	}
}

// TestSetsFollowOnlyOnScreen: the page is read again only while the Jobs
// view is on screen, at most once per poll, never while a read runs; a
// reply of a re-read that a newer read replaced is dropped.
func TestSetsFollowOnlyOnScreen(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	reads := f.readCount()
	m = drive(t, m, keys("tab")...) // the Pools view
	m = poll(t, m, f, fixedNow)
	if f.readCount() != reads {
		t.Fatalf("a poll read the page of a view not on screen")
	}
	// Back on screen, the page follows the poll it missed at once.
	m = drive(t, m, keys("shift+tab")...)
	if f.readCount() != reads+1 {
		t.Fatalf("%d reads on coming back, want 1", f.readCount()-reads)
	}
	// A poll while a re-read runs: the next re-read waits for the reply.
	m, _ = sendSets(m, current(m, snapshotMsg{snap: fixture(), at: fixedNow}))
	m, reread := sendSets(m, current(m, snapshotMsg{snap: fixture(), at: fixedNow}))
	for _, msg := range runCmd(reread) {
		if _, ok := msg.(setsPageMsg); ok {
			t.Fatal("a second re-read started while one runs")
		}
	}
	// pgdn while it runs: the re-read's reply is dropped.
	v := jobsView(t, m)
	if !v.poll.running {
		t.Fatal("no re-read running")
	}
	stale := setsPageMsg{seq: v.loadSeq, reread: true, page: redisq.SetPage{Set: model.SetDead, Total: 1, Jobs: v.page[:1]}}
	m = drive(t, m, keys("pgdown")...)
	m = drive(t, m, stale)
	if v := jobsView(t, m); v.offset != setsPageSize || len(v.page) != setsPageSize || v.poll.running {
		t.Errorf("a stale re-read replaced the page: offset %d, %d rows, running %v", v.offset, len(v.page), v.poll.running)
	}
}

// FollowSetPage records the read and answers with the page a full read
// of the filter gives.
func (f *fakeSets) FollowSetPage(ctx context.Context, set model.SetName, flt redisq.SetFilter, prev redisq.SetPage, o redisq.PageOptions) (redisq.SetPage, error) {
	f.mu.Lock()
	f.follows = append(f.follows, fakeRead{set, flt, o})
	f.mu.Unlock()
	o.Offset = prev.Offset
	p, err := f.SetPage(ctx, set, flt, o, redisq.ScanOptions{})
	f.mu.Lock()
	f.reads = f.reads[:len(f.reads)-1]
	f.mu.Unlock()
	return p, err
}

// TestSetsQueryKeptAcrossPolls: a page filtered by a query follows the
// polls from what it shows (no walk of the set), the query and the
// cursor staying; the summary counts what the query matches, read fresh.
func TestSetsQueryKeptAcrossPolls(t *testing.T) {
	f := deadFixture()
	o, _ := setsOptions(f)
	o.Reads.SetFollow = f
	m := newTest(t, o, 100, 30)
	m = drive(t, m, keys("shift+tab", "/", "resize", "enter", "j", "j")...)
	v := jobsView(t, m)
	under := cursorID(t, v)
	if v.jobFilter != "resize" || v.total != 12 {
		t.Fatalf("query %q, total %d", v.jobFilter, v.total)
	}
	reads := f.readCount()
	f.addJob(model.SetDead, "resize_image", "ri50", 3, "image too large")
	m = poll(t, m, f, fixedNow)
	m = poll(t, m, f, fixedNow)
	v = jobsView(t, m)
	if v.jobFilter != "resize" || v.query == nil || cursorID(t, v) != under || !strings.Contains(m.View(), "where resize") {
		t.Errorf("after polls: query %q, cursor %s:\n%s", v.jobFilter, cursorID(t, v), m.View())
	}
	if f.readCount() != reads || len(f.follows) != 2 || f.follows[0].filter.Query.Text != "resize" {
		t.Errorf("%d page reads (want none), follows %+v", f.readCount()-reads, f.follows)
	}
	if ids := pageIDs(v); ids[0] != "ri50" || v.total != 13 || v.counts.Dead != 46 || !strings.Contains(m.View(), "1 new since opened") {
		t.Errorf("the new match is not at the top: %v, total %d:\n%s", ids, v.total, m.View())
	}
	// S counts what the query matches, not the whole set.
	m = drive(t, m, keys("S")...)
	v = jobsView(t, m)
	if got := f.scans[len(f.scans)-1]; got.Query.Text != "resize" {
		t.Errorf("the summary scan's filter %+v", got)
	}
	if v.summary.sum.Members != 13 || v.summary.sum.ByName["send_email"] != 0 || !strings.Contains(m.View(), "summary of dead where resize: 13 members") {
		t.Errorf("summary %+v:\n%s", v.summary.sum, m.View())
	}
	// Read fresh: a death of the type since, and S again, counts it.
	f.addJob(model.SetDead, "resize_image", "ri99", 2, "image too large")
	m = drive(t, m, keys("S", "S")...)
	if v := jobsView(t, m); v.summary.sum.Members != 14 {
		t.Errorf("S again counts %d, want 14", v.summary.sum.Members)
	}
}

// TestSetsPageSaysWhenOlder: a re-read that fails keeps the page, with
// the error and how much older than the header it is.
func TestSetsPageSaysWhenOlder(t *testing.T) {
	f := deadFixture()
	now := fixedNow
	o, _ := setsOptions(f)
	o.Now = func() time.Time { return now }
	m := newTest(t, o, 100, 30)
	m = drive(t, m, keys("shift+tab")...)
	before := pageIDs(jobsView(t, m))
	if strings.Contains(m.View(), "page as of") {
		t.Fatalf("a fresh page says it is old:\n%s", m.View())
	}
	f.pageErr = errors.New("i/o timeout")
	now = now.Add(7 * time.Second)
	m = poll(t, m, f, now)
	view := m.View()
	if got := pageIDs(jobsView(t, m)); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("a failed re-read changed the page")
	}
	for _, want := range []string{"page as of 7s ago", "error: i/o timeout"} {
		if !strings.Contains(view, want) {
			t.Errorf("the view lacks %q:\n%s", want, view)
		}
	}
	f.pageErr = nil
	now = now.Add(2 * time.Second)
	m = poll(t, m, f, now)
	if view := m.View(); strings.Contains(view, "page as of") || strings.Contains(view, "error:") {
		t.Errorf("after a good re-read:\n%s", view)
	}
}

// TestSetsQueryWithoutFollower: without the follow of a filtered page, a
// poll does not walk the set for it: the page says how old it is.
func TestSetsQueryWithoutFollower(t *testing.T) {
	f := deadFixture()
	now := fixedNow
	o, _ := setsOptions(f)
	o.Now = func() time.Time { return now }
	m := newTest(t, o, 100, 30)
	m = drive(t, m, keys("shift+tab", "/", "resize", "enter")...)
	reads := f.readCount()
	now = now.Add(3 * time.Second)
	m = poll(t, m, f, now)
	if f.readCount() != reads || !strings.Contains(m.View(), "page as of 3s ago") {
		t.Errorf("%d reads:\n%s", f.readCount()-reads, m.View())
	}
}

// TestSetsCursorChasedOffThePage: new deaths that push the member under
// the cursor off the page make the view read the page it is on now, once,
// so the cursor stays on it.
func TestSetsCursorChasedOffThePage(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	for range 18 {
		m = drive(t, m, keys("j")...)
	}
	under := cursorID(t, jobsView(t, m))
	for i := range 3 {
		f.addJob(model.SetDead, "charge_card", fmt.Sprintf("cc%d", i), int64(10+i), "gateway timeout")
	}
	reads := f.readCount()
	m = poll(t, m, f, fixedNow)
	v := jobsView(t, m)
	if got := cursorID(t, v); got != under || v.offset != 3 || f.readCount()-reads != 2 {
		t.Errorf("cursor on %s (want %s), offset %d, %d reads", got, under, v.offset, f.readCount()-reads)
	}
	if view := m.View(); !strings.Contains(view, "4-23 of 48") || !strings.Contains(view, "3 new since opened") {
		t.Errorf("title line:\n%s", view)
	}
}

// markedLine reports whether a line of view is marked ("* ") and shows id.
func markedLine(view, id string) bool {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "* ") && strings.Contains(l, id) {
			return true
		}
	}
	return false
}

// TestSetsUnmarksWhatLeft: a marked job that a re-read shows left the set
// loses its mark, and the status line says so; a marked job pushed down
// off the page by new ones keeps it.
func TestSetsUnmarksWhatLeft(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	// Mark the fourth, fifth and last rows.
	m = drive(t, m, keys("j", "j", "j", " ", " ", "G", " ")...)
	v := jobsView(t, m)
	ids := pageIDs(v)
	if len(v.marked) != 3 {
		t.Fatalf("%d marked", len(v.marked))
	}
	f.remove(model.SetDead, ids[4])
	f.addJob(model.SetDead, "charge_card", "cc1", 5, "gateway timeout")
	f.addJob(model.SetDead, "charge_card", "cc2", 6, "gateway timeout")
	m = poll(t, m, f, fixedNow)
	v = jobsView(t, m)
	var still []string
	for _, sj := range v.marked {
		still = append(still, sj.Job.ID)
	}
	if len(v.marked) != 2 || !strings.Contains(statusOf(m), "1 marked job left the set") {
		t.Errorf("marks %v, status %q", still, statusOf(m))
	}
	sort.Strings(still)
	if want := []string{ids[3], ids[19]}; fmt.Sprint(still) != fmt.Sprint(want) {
		t.Errorf("marked %v, want %v (%s left the set; %s was pushed off the page)", still, want, ids[4], ids[19])
	}
}
