package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
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
	if len(f.reads) != reads || !strings.Contains(statusOf(m), "last page") {
		t.Errorf("pgdn on the last page read again (%d reads) or said %q", len(f.reads)-reads, statusOf(m))
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
	if r := f.lastRead(); r.filter.Query == nil || fmt.Sprint(r.filter.Query.NameParts) != "[resize_image]" || v.total != 12 || len(v.page) != 12 {
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
	var pauses int
	o, _ := setsOptions(f)
	o.ScanPause = func(d time.Duration) time.Duration { pauses++; return 3 * d }
	m := drive(t, newTest(t, o, 100, 30), keys("shift+tab")...)
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

// TestSetsRequeueMarked: two marked jobs; R reads the plan, the dialog
// shows it as the command line prints it, y runs it, one audit line is
// written, the page is read again and the cursor stays on its row.
func TestSetsRequeueMarked(t *testing.T) {
	f := deadFixture()
	m, d := openJobs(t, f, false, 100, 40)
	// Rows: raw, raw(trunc), frac1, se00, se01, ...: mark se00 and se02.
	m = drive(t, m, keys("j", "j", "j", " ", "j", " ", "k", "k")...)
	v := jobsView(t, m)
	if len(v.marked) != 2 || cursorID(t, v) != "se01" {
		t.Fatalf("marked %d, cursor on %s", len(v.marked), cursorID(t, v))
	}
	m = drive(t, m, keys("R")...)
	if !dialogOpen(m) {
		t.Fatalf("no dialog after R; status %q", statusOf(m))
	}
	if len(f.planned) != 1 {
		t.Fatalf("%d plans read", len(f.planned))
	}
	tg := f.planned[0]
	if tg.Set != model.SetDead || tg.All || len(tg.Refs) != 2 || tg.Refs[0].ID == "" || tg.Refs[0].Score == "" {
		t.Errorf("target %+v", tg)
	}
	view := m.View()
	for _, want := range []string{"Requeue 2 jobs from dead?", "Plan for namespace work", "send_email  2", "First jobs:", "se00", "se02", "y: run it"} {
		if !strings.Contains(view, want) {
			t.Errorf("dialog lacks %q:\n%s", want, view)
		}
	}
	if len(f.executed) != 0 {
		t.Fatal("executed before y")
	}
	reads := len(f.reads)
	m = drive(t, m, keys("y")...)
	if len(f.executed) != 1 || f.executed[0].Action != reaper.JobsRequeue {
		t.Fatalf("executed %d plans", len(f.executed))
	}
	if len(d.audit.entries) != 1 {
		t.Fatalf("%d audit lines, want 1", len(d.audit.entries))
	}
	e := d.audit.entries[0]
	if e.Action != "jobs-requeue" || e.Moved != 2 || len(e.Targets) != 3 || e.Targets[0] != "set=dead" || !strings.Contains(strings.Join(e.Targets, " "), "se00@") ||
		!strings.Contains(e.Result, "Done: 2 jobs requeued") {
		t.Errorf("audit entry %+v", e)
	}
	v = jobsView(t, m)
	if len(f.reads) != reads+1 || len(v.marked) != 0 || v.total != 43 {
		t.Errorf("after the action: %d reads, %d marked, total %d", len(f.reads)-reads, len(v.marked), v.total)
	}
	if got := cursorID(t, v); got != "se01" {
		t.Errorf("cursor on %s after the requeue, want se01 (it was on it)", got)
	}
	if !strings.Contains(statusOf(m), "Done: 2 jobs requeued") {
		t.Errorf("status %q", statusOf(m))
	}
}

// TestSetsDeleteKeepsRow: D on the job under the cursor deletes that job;
// the cursor stays on the same row, now the next job.
func TestSetsDeleteKeepsRow(t *testing.T) {
	f := deadFixture()
	m, d := openJobs(t, f, false, 100, 40)
	m = drive(t, m, keys("j", "j", "j", "j")...)
	if got := cursorID(t, jobsView(t, m)); got != "se01" {
		t.Fatalf("cursor on %s", got)
	}
	m = drive(t, m, keys("D")...)
	if !dialogOpen(m) || !strings.Contains(m.View(), "Delete 1 job from dead?") {
		t.Fatalf("no delete dialog:\n%s", m.View())
	}
	m = drive(t, m, keys("n")...)
	if len(f.executed) != 0 || dialogOpen(m) || !strings.Contains(statusOf(m), "nothing was changed") {
		t.Fatalf("n: executed %d, status %q", len(f.executed), statusOf(m))
	}
	// A y typed before the plan is on screen does not confirm it.
	m = drive(t, m, keys("D", "y")...)
	if !dialogOpen(m) || len(f.executed) != 0 {
		t.Fatalf("typed-ahead y: dialog %v, executed %d", dialogOpen(m), len(f.executed))
	}
	m = drive(t, m, keys("y")...)
	v := jobsView(t, m)
	if len(f.executed) != 1 || f.executed[0].Action != reaper.JobsDelete || len(d.audit.entries) != 1 {
		t.Fatalf("executed %d, audit %d", len(f.executed), len(d.audit.entries))
	}
	if got := cursorID(t, v); got != "se02" || v.list.cursor != 4 {
		t.Errorf("cursor on %s (row %d), want se02 on row 4", got, v.list.cursor)
	}
}

// TestSetsRefreshKeepsJob: r reads the page again with the cursor on the
// same job, though a newer death pushed it down a row.
func TestSetsRefreshKeepsJob(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 40)
	m = drive(t, m, keys("j", "j", "j")...)
	f.addJob(model.SetDead, "report", "newest", 5, "boom")
	m = drive(t, m, keys("r")...)
	v := jobsView(t, m)
	if got := cursorID(t, v); got != "se00" || v.list.cursor != 4 {
		t.Errorf("cursor on %s (row %d), want se00 on row 4", got, v.list.cursor)
	}
	if v.total != 46 || v.counts.Dead != 46 {
		t.Errorf("total %d, dead %d", v.total, v.counts.Dead)
	}
}

// TestSetsReadOnly: no R, no D: the keys do nothing, read nothing and are
// not in the help; the reads and the summary work.
func TestSetsReadOnly(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, true, 100, 30)
	m = drive(t, m, keys(" ", "R", "D")...)
	if dialogOpen(m) || len(f.planned) != 0 {
		t.Fatalf("read-only: dialog %v, %d plans", dialogOpen(m), len(f.planned))
	}
	view := m.View()
	for _, hidden := range []string{"R requeue", "D delete"} {
		if strings.Contains(view, hidden) {
			t.Errorf("read-only help shows %q:\n%s", hidden, view)
		}
	}
	m = drive(t, m, keys("S")...)
	if v := jobsView(t, m); !v.summary.done {
		t.Errorf("read-only: no summary")
	}
	// With writes, the same keys are in the help.
	m, _ = openJobs(t, deadFixture(), false, 120, 30)
	if view := m.View(); !strings.Contains(view, "R requeue") || !strings.Contains(view, "D delete") {
		t.Errorf("help lacks R and D:\n%s", view)
	}
}

// TestSetsStaleResults: a page read that an newer one replaced, and a plan
// the operator has moved on from, are dropped.
func TestSetsStaleResults(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	m, first := sendSets(m, keyMsg("pgdown"))
	m, second := sendSets(m, keyMsg("pgup"))
	late := runCmd(first)
	m = drive(t, m, runCmd(second)...)
	m = drive(t, m, late...)
	if v := jobsView(t, m); v.offset != 0 || pageIDs(v)[0] != "raw" {
		t.Errorf("an older read replaced a newer one: offset %d", v.offset)
	}
	m, plan := sendSets(m, keyMsg("D"))
	m, _ = sendSets(m, keyMsg("R"))
	for _, msg := range runCmd(plan) {
		if _, ok := msg.(setsPlanMsg); ok {
			m = drive(t, m, msg)
		}
	}
	if dialogOpen(m) {
		t.Errorf("the first plan opened a dialog after a second was asked for")
	}
}

// TestSetsSummaryPick: in the summary, the cursor picks a job type; enter
// lists its jobs, R plans the requeue of every job of it in the set (the
// bulk plan scans the set), and y runs it.
func TestSetsSummaryPick(t *testing.T) {
	f := deadFixture()
	m, d := openJobs(t, f, false, 100, 30)
	m = drive(t, m, keys("S")...)
	if name, ok := jobsView(t, m).summaryPick(); !ok || name != "send_email" {
		t.Fatalf("summary opens on %q (%v), want the largest type", name, ok)
	}
	m = drive(t, m, keys("j", "enter")...)
	v := jobsView(t, m)
	if v.showSummary || v.jobFilter != "job:resize_image" || f.lastRead().filter.Query.JobName() != "resize_image" || v.total != 12 {
		t.Fatalf("enter on resize_image: summary %v, filter %q, read %+v, total %d", v.showSummary, v.jobFilter, f.lastRead().filter, v.total)
	}
	// S reads the summary fresh: R picks from it once it is read.
	m = drive(t, m, keys("S")...)
	m = drive(t, m, keys("R")...)
	if !dialogOpen(m) {
		t.Fatalf("no dialog; status %q", statusOf(m))
	}
	tg := f.planned[len(f.planned)-1]
	if !tg.All || tg.Job != "resize_image" || tg.Set != model.SetDead || len(tg.Refs) != 0 {
		t.Fatalf("bulk target %+v", tg)
	}
	if view := m.View(); !strings.Contains(view, "Requeue 12 jobs from dead (every resize_image job)?") {
		t.Errorf("bulk dialog:\n%s", view)
	}
	m = drive(t, m, keys("y")...)
	if len(f.executed) != 1 || len(d.audit.entries) != 1 || strings.Join(d.audit.entries[0].Targets, " ") != "set=dead all job=resize_image" {
		t.Fatalf("executed %d, audit %+v", len(f.executed), d.audit.entries)
	}
	if v := jobsView(t, m); v.total != 0 || v.counts.Dead != 33 {
		t.Errorf("after the requeue: %d listed, dead %d", v.total, v.counts.Dead)
	}
	// The summary on screen counted what is gone: it scans again at once,
	// for the query in force, which now matches nothing.
	if s := jobsView(t, m).summary; !s.done || s.where != "job:resize_image" || s.sum.ByName["resize_image"] != 0 || s.sum.Members != 0 || s.prog.Seen != 33 {
		t.Errorf("summary after the requeue: %+v", s.sum)
	}
}

// TestSetsDetailScrolls: the full detail of a job with long args scrolls
// with the list keys, from its first line to its last.
func TestSetsDetailScrolls(t *testing.T) {
	f := newFakeSets()
	var args []string
	for i := range 40 {
		args = append(args, fmt.Sprintf(`"key%02d":%d`, i, i))
	}
	f.add(model.SetDead, `{"name":"big","id":"b1","t":1,"args":{`+strings.Join(args, ",")+`}}`, "1795964000")
	m, _ := openJobs(t, f, false, 80, 24)
	m = drive(t, m, keys("enter")...)
	if view := m.View(); !strings.Contains(view, "key00") || strings.Contains(view, "key39") {
		t.Fatalf("full detail, top:\n%s", view)
	}
	m = drive(t, m, keys("G")...)
	if view := m.View(); strings.Contains(view, "key00") || !strings.Contains(view, "key39") || !strings.Contains(view, "}") {
		t.Fatalf("full detail, bottom:\n%s", view)
	}
	m = drive(t, m, keys("esc")...)
	if view := m.View(); strings.Contains(view, "one job") || !strings.Contains(view, "1-1 of 1") {
		t.Errorf("esc did not come back to the list:\n%s", view)
	}
}

// TestSetsRelTime: a score is an age against Redis's clock when it is a
// time, and shown as stored otherwise.
func TestSetsRelTime(t *testing.T) {
	now := fixture().RedisTime
	at := func(d int64) string { return fmt.Sprint(now.Unix() + d) }
	for _, tc := range []struct{ score, want string }{
		{at(-3600), "1h00m ago"},
		{at(90), "in 1m30s"},
		{at(-300) + ".5", "4m59s ago"},
		{"+inf", "+inf"},
		{"-inf", "-inf"},
		{"1e300", "1e300"},
		{"nan\x1b[31m", `nan\x1b[31m`},
	} {
		if got := relTime(model.ParseSetJob(model.SetDead, []byte("{}"), tc.score), now); got != tc.want {
			t.Errorf("relTime(%q) = %q, want %q", tc.score, got, tc.want)
		}
	}
}

// TestSetsPlanRefused: a plan that fails (the job left the set since the
// page was read) or takes nothing opens no dialog and says why in one line.
func TestSetsPlanRefused(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 30)
	m = drive(t, m, keys("j", "j", "j")...)
	f.sets[model.SetDead] = f.sets[model.SetDead][1:] // se00 is gone
	m = drive(t, m, keys("R")...)
	if dialogOpen(m) || !strings.Contains(statusOf(m), "not planned: se00@") || !strings.Contains(statusOf(m), "job not found") {
		t.Errorf("gone job: dialog %v, status %q", dialogOpen(m), statusOf(m))
	}
	m = drive(t, m, keys("r", "S")...)
	name, _ := jobsView(t, m).summaryPick()
	f.sets[model.SetDead] = nil
	m = drive(t, m, keys("D")...)
	if dialogOpen(m) || !strings.Contains(statusOf(m), "nothing to delete") {
		t.Errorf("empty bulk plan of %q: dialog %v, status %q", name, dialogOpen(m), statusOf(m))
	}
	if len(f.executed) != 0 {
		t.Errorf("%d plans executed", len(f.executed))
	}
}

// TestSetsKeysDoNotClash: in every view, and in the Jobs view's list and
// summary, no two bindings that are on share a key.
func TestSetsKeysDoNotClash(t *testing.T) {
	m, _ := openJobs(t, deadFixture(), false, 120, 30)
	check := func(where string, m Model) {
		t.Helper()
		owner := map[string]string{}
		for _, col := range m.keyMap().FullHelp() {
			for _, b := range col {
				if !b.Enabled() {
					continue
				}
				for _, k := range b.Keys() {
					if o, ok := owner[k]; ok && o != b.Help().Desc {
						t.Errorf("%s: key %q is both %q and %q", where, k, o, b.Help().Desc)
					}
					owner[k] = b.Help().Desc
				}
			}
		}
	}
	check("jobs list", m)
	check("jobs summary", drive(t, m, keyMsg("S")))
	for i := range tabCount(m) - 1 {
		m = drive(t, m, keyMsg("tab"))
		check(m.focused().title(), m)
		if i == 0 {
			check("pool detail", drive(t, m, keyMsg("j"), keyMsg("enter")))
		}
	}
}

// TestSetsEmptiedPageGoesBack: deleting every job of the last page shows
// the page before it.
func TestSetsEmptiedPageGoesBack(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 40)
	m = drive(t, m, keys("pgdown", "pgdown", " ", " ", " ", " ", " ", "D")...)
	if !dialogOpen(m) {
		t.Fatalf("no dialog: %q", statusOf(m))
	}
	m = drive(t, m, keys("y")...)
	v := jobsView(t, m)
	if v.offset != 20 || len(v.page) != 20 || v.total != 40 {
		t.Errorf("after emptying the last page: offset %d, %d rows, total %d", v.offset, len(v.page), v.total)
	}
}

// TestSetsAuditLineBounded: an action on many marked jobs names the first
// ones in its audit line and counts the rest.
func TestSetsAuditLineBounded(t *testing.T) {
	f := deadFixture()
	m, d := openJobs(t, f, false, 100, 40)
	var marks []string
	for range setsPageSize {
		marks = append(marks, " ")
	}
	m = drive(t, m, keys(append(marks, "pgdown")...)...)
	m = drive(t, m, keys(" ", " ", "D")...)
	drive(t, m, keys("y")...)
	if len(d.audit.entries) != 1 {
		t.Fatalf("%d audit lines", len(d.audit.entries))
	}
	e := d.audit.entries[0]
	if len(e.Targets) != 1+reaper.JobsAuditRefs+1 || e.Targets[len(e.Targets)-1] != "and 2 more" || e.Moved != 22 {
		t.Errorf("audit targets %d (%q), moved %d", len(e.Targets), e.Targets[len(e.Targets)-1], e.Moved)
	}
}

// TestSetsRequeueUnservedShowsThePlan: a requeue of every job of a type no
// live pool serves shows its plan all the same, y does nothing there, and
// F plans it again with force and opens the usual dialog; y runs that.
func TestSetsRequeueUnservedShowsThePlan(t *testing.T) {
	f := deadFixture()
	f.unserved = map[string]bool{"resize_image": true}
	m, d := openJobs(t, f, false, 80, 24)
	m = drive(t, m, keys("S")...)
	m = drive(t, m, keys("j")...)
	m = drive(t, m, keys("R")...)
	view := m.View()
	if !dialogOpen(m) || !strings.Contains(view, "Requeue 12 jobs from dead (every resize_image job)?") ||
		!strings.Contains(view, "no live pool serves resize_image") || !strings.Contains(view, "F: requeue anyway") {
		t.Fatalf("no plan with the warning and the forced choice; status %q:\n%s", statusOf(m), view)
	}
	if strings.Contains(view, "--force") || strings.Contains(view, "y: run it") || strings.Contains(view, "y run it") {
		t.Errorf("the dialog names a flag or offers y:\n%s", view)
	}
	m = drive(t, m, keys("y")...)
	if len(f.executed) != 0 || !dialogOpen(m) {
		t.Fatalf("y in the refused plan: executed %d, dialog %v", len(f.executed), dialogOpen(m))
	}
	m = drive(t, m, keys("F")...)
	if tg := f.planned[len(f.planned)-1]; !tg.Force || tg.Job != "resize_image" || !tg.All {
		t.Fatalf("F planned %+v", tg)
	}
	if view := m.View(); !dialogOpen(m) || !strings.Contains(view, "y: run it") {
		t.Fatalf("F opened no dialog to confirm:\n%s", view)
	}
	drive(t, m, keys("y")...)
	if len(f.executed) != 1 || !f.executed[0].Target.Force || len(d.audit.entries) != 1 {
		t.Fatalf("executed %+v, audit %+v", f.executed, d.audit.entries)
	}
}
