package tui

import "testing"

// TestAuditLineNamesTheJournal: the audit line of a write the actor
// journalled names that journal, so that undo can be found from it.
func TestAuditLineNamesTheJournal(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	o.Writes.Reap = journalledReaper{d.reaper, "20261202T004900-abc123"}
	m := newTest(t, o, 120, 30)
	m, cmd := stepCmd(press(t, m, "X"), keyMsg("y"))
	if m, _ = deliver(t, m, cmd); actionRunning(m) {
		t.Fatal("the reap is still running")
	}
	if len(d.audit.entries) != 1 || d.audit.entries[0].Journal != "20261202T004900-abc123" {
		t.Fatalf("audit entries: %+v", d.audit.entries)
	}
}
