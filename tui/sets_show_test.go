package tui

import (
	"testing"

	"github.com/workq-tui/workq-tui/model"
)

// The Jobs view shows what showJobsMsg asks for: another set, from its
// list and first page, its marks dropped; a query, filtering it; neither,
// the page it shows without a read.
func TestSetsShowJobs(t *testing.T) {
	f := deadFixture()
	m, _ := openJobs(t, f, false, 100, 40)
	m = drive(t, m, keys(" ", "S")...)
	v := jobsView(t, m)
	if len(v.marked) != 1 || !v.showSummary {
		t.Fatalf("before: %d marks, summary %v", len(v.marked), v.showSummary)
	}
	reads := f.readCount()
	next, cmd := v.update(showJobsMsg{})
	runCmd(cmd)
	if w := next.(setsView); f.readCount() != reads || !w.showSummary {
		t.Errorf("nothing asked: %d reads, summary %v", f.readCount()-reads, w.showSummary)
	}
	next, cmd = v.update(showJobsMsg{set: model.SetRetry})
	runCmd(cmd)
	if w := next.(setsView); f.readCount() != reads+1 || w.set != model.SetRetry || w.showSummary || len(w.marked) != 0 || f.lastRead().set != model.SetRetry {
		t.Errorf("retry: %d reads, set %s, summary %v, %d marks", f.readCount()-reads, w.set, w.showSummary, len(w.marked))
	}
	next, cmd = v.update(showJobsMsg{query: "job:send_email", filter: true})
	runCmd(cmd)
	if w := next.(setsView); w.set != model.SetDead || w.jobFilter != "job:send_email" || w.showSummary || f.lastRead().filter.Query.JobName() != "send_email" {
		t.Errorf("query: set %s, filter %q, summary %v", w.set, w.jobFilter, w.showSummary)
	}
}
