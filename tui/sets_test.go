package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// pageIDs are the ids of a page in its order.
func pageIDs(v setsView) []string {
	out := make([]string, len(v.page))
	for i, sj := range v.page {
		out[i] = "raw"
		if sj.Job != nil {
			out[i] = sj.Job.ID
		}
	}
	return out
}

func cursorID(t *testing.T, v setsView) string {
	t.Helper()
	sj, ok := v.current()
	if !ok || sj.Job == nil {
		t.Fatalf("no job under the cursor (%d of %d)", v.list.cursor, len(v.page))
	}
	return sj.Job.ID
}

// TestSetsPaging: the view opens on dead, newest death first, one page of
// setsPageSize per read; pgdn and pgup read the next and previous page
// and nothing else.
func TestSetsPaging(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	v := jobsView(t, m)
	if v.set != model.SetDead || !v.loaded || len(v.page) != setsPageSize || v.total != 45 {
		t.Fatalf("first page: set %s loaded %v rows %d total %d", v.set, v.loaded, len(v.page), v.total)
	}
	if got := pageIDs(v)[0]; got != "raw" {
		t.Errorf("newest death first: first row %s, want the member that died 100s ago", got)
	}
	if r := f.lastRead(); r.opts != (redisq.PageOptions{Offset: 0, Limit: setsPageSize}) || !r.filter.Empty() {
		t.Errorf("first read %+v", r)
	}
	if v.counts == nil || v.counts.Dead != 45 || v.counts.Retry != 2 || v.counts.Scheduled != 1 {
		t.Errorf("set sizes %+v", v.counts)
	}
	reads := len(f.reads)
	m = drive(t, m, keys("pgdown")...)
	v = jobsView(t, m)
	if r := f.lastRead(); r.opts.Offset != setsPageSize || len(f.reads) != reads+1 {
		t.Errorf("pgdn read %+v (%d reads, want %d)", r.opts, len(f.reads), reads+1)
	}
	if v.offset != setsPageSize || len(v.page) != setsPageSize || v.list.cursor != 0 {
		t.Errorf("second page: offset %d rows %d cursor %d", v.offset, len(v.page), v.list.cursor)
	}
	m = drive(t, m, keys("pgdown")...)
	if v = jobsView(t, m); v.offset != 40 || len(v.page) != 5 {
		t.Errorf("last page: offset %d rows %d", v.offset, len(v.page))
	}
	reads = len(f.reads)
	m = drive(t, m, keys("pgdown")...)
	if len(f.reads) != reads || !strings.Contains(m.status.text, "last page") {
		t.Errorf("pgdn on the last page read again (%d reads) or said %q", len(f.reads)-reads, m.status.text)
	}
	m = drive(t, m, keys("pgup", "pgup")...)
	if v = jobsView(t, m); v.offset != 0 || f.lastRead().opts.Offset != 0 {
		t.Errorf("back to the first page: offset %d", v.offset)
	}
	if !strings.Contains(m.View(), "1-20 of 45") {
		t.Errorf("title line lacks the page:\n%s", m.View())
	}
}

// TestSetsSwitchOrderFilter: s cycles the sets, v reverses the order, / and
// enter filter by job type, esc clears the filter.
func TestSetsSwitchOrderFilter(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	m = drive(t, m, keys("s")...)
	v := jobsView(t, m)
	if v.set != model.SetRetry || f.lastRead().set != model.SetRetry || strings.Join(pageIDs(v), ",") != "rt2,rt1" {
		t.Errorf("after s: set %s, read %s, rows %v (retry: soonest first)", v.set, f.lastRead().set, pageIDs(v))
	}
	m = drive(t, m, keys("s", "s")...)
	if v = jobsView(t, m); v.set != model.SetDead {
		t.Fatalf("s three times: set %s", v.set)
	}
	m = drive(t, m, keys("v")...)
	v = jobsView(t, m)
	if !f.lastRead().opts.Reverse || pageIDs(v)[0] != "ri11" {
		t.Errorf("v: read %+v, first row %s (want the oldest death, ri11)", f.lastRead().opts, pageIDs(v)[0])
	}
	if !strings.Contains(m.View(), "oldest first") {
		t.Errorf("title line does not say the order")
	}
	msgs := keys("/")
	for _, r := range "resize_image" {
		msgs = append(msgs, keyMsg(string(r)))
	}
	msgs = append(msgs, keyMsg("enter"))
	m = drive(t, m, msgs...)
	v = jobsView(t, m)
	if r := f.lastRead(); r.filter.Job != "resize_image" || v.total != 12 || len(v.page) != 12 {
		t.Errorf("filtered read %+v: total %d rows %d", r.filter, v.total, len(v.page))
	}
	for _, sj := range v.page {
		if sj.Job == nil || sj.Job.Name != "resize_image" {
			t.Errorf("filtered page holds %q", sj.Raw)
		}
	}
	m = drive(t, m, keys("esc")...)
	if v = jobsView(t, m); v.jobFilter != "" || !f.lastRead().filter.Empty() || v.total != 45 {
		t.Errorf("esc: filter %q, read %+v, total %d", v.jobFilter, f.lastRead().filter, v.total)
	}
}

// TestSetsSummary: S starts a paced scan (one step at a time, a pause after
// each), shows its progress, and counts by job type and folded error.
func TestSetsSummary(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	var pauses int
	m.opts.ScanPause = func(d time.Duration) time.Duration { pauses++; return 3 * d }
	m, cmd := sendSets(m, keyMsg("S"))
	v := jobsView(t, m)
	if !v.showSummary || !v.summary.running || !v.summary.stepping {
		t.Fatalf("S: summary shown %v running %v", v.showSummary, v.summary.running)
	}
	// First step only: progress on screen.
	msgs := runCmd(cmd)
	m, pending := sendSets(m, msgs[0])
	if view := m.View(); !strings.Contains(view, "scanning… 10 of 45 members (22%), 1 call") {
		t.Errorf("progress not shown:\n%s", view)
	}
	m = drive(t, m, keys("S", "S")...) // closed and opened again: no second scan
	if f.open != 1 {
		t.Errorf("%d scans open, want the one", f.open)
	}
	m = drive(t, m, runCmd(pending)...)
	v = jobsView(t, m)
	s := v.summary
	if !s.done || s.running || s.sum.Members != 45 || s.sum.NotJobs != 2 {
		t.Fatalf("summary: done %v members %d not JSON %d", s.done, s.sum.Members, s.sum.NotJobs)
	}
	if s.sum.ByName["send_email"] != 30 || s.sum.ByName["resize_image"] != 12 {
		t.Errorf("by name %v", s.sum.ByName)
	}
	if pauses != s.prog.Calls-1 {
		t.Errorf("%d pauses for %d steps, want one after each but the last", pauses, s.prog.Calls)
	}
	view := m.View()
	for _, want := range []string{"summary of dead: 45 members, 2 not JSON", "      30 send_email", "      30 dial tcp N.N.N.N:N: i/o timeout", "      12 image <id> too large"} {
		if !strings.Contains(view, want) {
			t.Errorf("summary lacks %q:\n%s", want, view)
		}
	}
	if f.open != 0 {
		t.Errorf("%d scans left open", f.open)
	}
}

