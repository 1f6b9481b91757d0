package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// fakeRepairer records the requeue and lock repair plans it runs.
type fakeRepairer struct {
	mu       sync.Mutex
	requeues []reaper.RequeuePlan
	repairs  []reaper.LockRepairPlan
}

func (f *fakeRepairer) Requeue(_ context.Context, p reaper.RequeuePlan, progress reaper.Progress) (reaper.RequeueResult, error) {
	f.mu.Lock()
	f.requeues = append(f.requeues, p)
	f.mu.Unlock()
	var res reaper.RequeueResult
	var moved int64
	for _, l := range p.Lists {
		moved += l.Jobs
		if progress != nil {
			progress(moved, p.TotalJobs())
		}
		res.Lists = append(res.Lists, reaper.ListResult{Key: l.Key, PoolID: l.PoolID, Moved: l.Jobs})
	}
	return res, nil
}

func (f *fakeRepairer) RepairLocks(_ context.Context, p reaper.LockRepairPlan) (reaper.LockRepairResult, error) {
	f.mu.Lock()
	f.repairs = append(f.repairs, p)
	f.mu.Unlock()
	var res reaper.LockRepairResult
	for _, j := range p.Jobs {
		res.Jobs = append(res.Jobs, reaper.JobLockResult{JobName: j.JobName, Applied: true, LockAfter: j.LockAfter, LockInfoAfter: j.LockInfoAfter})
	}
	return res, nil
}

func (f *fakeRepairer) ran() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requeues), len(f.repairs)
}

func repairOptions() (Options, testDeps, *fakeScanner, *fakeRepairer) {
	o, d, sc := scanOptions(1)
	r := &fakeRepairer{}
	o.Writes.Requeue, o.Writes.Repair = r, r
	return o, d, sc, r
}

// toView presses tab until the focused view has the title.
func toView(t *testing.T, m Model, title string) Model {
	t.Helper()
	for i := 0; i < 5 && m.focused().title() != title; i++ {
		m = step(t, m, keyMsg("tab"))
	}
	if m.focused().title() != title {
		t.Fatalf("tab never reached %s", title)
	}
	return m
}

func TestRequeueOrphanConfirmed(t *testing.T) {
	o, d, sc, r := repairOptions()
	m := toView(t, newScanTest(t, o, 120, 30), "Orphans")
	if !m.keyMap().get(actions.Requeue).Enabled() {
		t.Fatal("R not enabled on an orphan")
	}
	m = step(t, m, keyMsg("R"))
	if !dialogOpen(m) {
		t.Fatalf("R opened no dialog; status %q", statusOf(m))
	}
	v := m.View()
	for _, want := range []string{"Requeue 5 jobs from 1 in-progress list?", fixtureOrphan.Key, "orphan: pool not in worker_pools", "5 -> work:jobs:send_email"} {
		if !strings.Contains(v, want) {
			t.Fatalf("dialog lacks %q:\n%s", want, v)
		}
	}
	sc.mu.Lock()
	sc.orphans = nil // what the scan after the requeue finds
	sc.mu.Unlock()
	startedBefore, _, _ := sc.counts()
	m, cmd := stepCmd(m, keyMsg("y"))
	if !actionRunning(m) || !strings.Contains(statusOf(m), " 0/5 jobs") {
		t.Fatalf("y did not start the requeue with a progress total: %q", statusOf(m))
	}
	m, _, _ = runScan(t, m, cmd)
	if n, _ := r.ran(); n != 1 || r.requeues[0].Lists[0].Key != fixtureOrphan.Key || !r.requeues[0].Lists[0].HeartbeatUnread {
		t.Fatalf("requeues %+v", r.requeues)
	}
	if !strings.Contains(statusOf(m), "requeued 5 jobs from 1 list") {
		t.Fatalf("status %q", statusOf(m))
	}
	// The refresh after it: TestDriveOrphanScanAndRequeue.
	if started, _, _ := sc.counts(); started != startedBefore+1 {
		t.Fatal("no new scan after the requeue")
	}
	if strings.Contains(m.View(), fixtureOrphan.Key) {
		t.Fatal("the requeued orphan is still listed")
	}
	if len(d.audit.entries) != 1 {
		t.Fatalf("%d audit entries", len(d.audit.entries))
	}
	if e := d.audit.entries[0]; e.Action != "requeue" || e.Moved != 5 || strings.Join(e.Targets, ",") != fixtureOrphan.Key {
		t.Fatalf("audit entry %+v", e)
	}
}

func TestRequeueCancelled(t *testing.T) {
	for _, k := range []string{"n", "esc"} {
		t.Run(k, func(t *testing.T) {
			o, d, _, r := repairOptions()
			m := toView(t, newScanTest(t, o, 120, 30), "Orphans")
			m = step(t, m, keyMsg("R"))
			m, cmd := stepCmd(m, keyMsg(k))
			m, _ = deliver(t, m, cmd)
			if n, _ := r.ran(); dialogOpen(m) || actionRunning(m) || n != 0 || len(d.audit.entries) != 0 {
				t.Fatal("cancel ran something")
			}
			if !strings.Contains(m.View(), fixtureOrphan.Key) {
				t.Fatal("cancel changed the orphans")
			}
		})
	}
}

// R in the detail of a dead pool requeues all of its lists: the detail
// view has no job-type cursor.
func TestRequeueDeadPoolFromDetail(t *testing.T) {
	o, _, _, r := repairOptions()
	m := newScanTest(t, o, 120, 30)
	m = step(t, m, keyMsg("j"))
	// In the pools list x (the reap) is the key for a dead pool; R is not.
	if m.keyMap().get(actions.Requeue).Enabled() {
		t.Fatal("R enabled in the pools list")
	}
	m = enter(t, m)
	p, _ := m.selectedPool()
	if p.Status != model.StatusDead {
		t.Fatalf("fixture: row 2 is %s", p.Status)
	}
	m = step(t, m, keyMsg("R"))
	if !dialogOpen(m) {
		t.Fatalf("R in a dead pool's detail opened no dialog; status %q", statusOf(m))
	}
	for _, list := range []string{"work:jobs:resize_image:" + p.ID + ":inprogress", "work:jobs:send_email:" + p.ID + ":inprogress"} {
		if !strings.Contains(dialogText(m), list) {
			t.Fatalf("the plan does not name %s:\n%s", list, dialogText(m))
		}
	}
	if !strings.Contains(m.View(), "dead pool still in worker_pools") {
		t.Fatalf("dialog:\n%s", m.View())
	}
	m, cmd := stepCmd(m, keyMsg("y"))
	m, _, _ = runScan(t, m, cmd)
	if n, _ := r.ran(); n != 1 || r.requeues[0].TotalJobs() != 4 {
		t.Fatalf("requeues %+v", r.requeues)
	}
	// On a live pool R is not there.
	m = step(t, m, keyMsg("esc"))
	m = step(t, m, keyMsg("G"))
	if m.keyMap().get(actions.Requeue).Enabled() {
		t.Fatal("R enabled on a live pool")
	}
	m = step(t, m, keyMsg("R"))
	if dialogOpen(m) || !strings.Contains(statusOf(m), "R requeues") {
		t.Fatalf("R on a live pool: dialog %v, status %q", dialogOpen(m), statusOf(m))
	}
}

func TestRepairLocksConfirmedAndCancelled(t *testing.T) {
	o, d, _, r := repairOptions()
	m := toView(t, newScanTest(t, o, 120, 30), "Job types")
	// report (row 1) is consistent: L is not there.
	if m.keyMap().get(actions.RepairLocks).Enabled() {
		t.Fatal("L enabled on a job type without drift")
	}
	m = step(t, m, keyMsg("L"))
	if dialogOpen(m) {
		t.Fatal("L opened a dialog on a job type without drift")
	}
	m = step(t, m, keyMsg("G")) // send_email, DRIFT
	if row := cursorRow(m); !strings.Contains(row, "send_email") || !strings.Contains(row, "DRIFT") {
		t.Fatalf("fixture: the cursor's row is not send_email with drift: %q", row)
	}
	m = step(t, m, keyMsg("L"))
	if !dialogOpen(m) {
		t.Fatalf("L opened no dialog; status %q", statusOf(m))
	}
	v := m.View()
	for _, want := range []string{"Repair the locks of send_email?", "lock                                 9 -> 6", "lock_info[6f1a2b3c4d5e6f7a8b9c0d1e]  3 -> 3"} {
		if !strings.Contains(v, want) {
			t.Fatalf("dialog lacks %q:\n%s", want, v)
		}
	}
	m, cmd := stepCmd(m, keyMsg("n"))
	m, _ = deliver(t, m, cmd)
	if _, n := r.ran(); n != 0 || dialogOpen(m) {
		t.Fatal("n ran the repair")
	}
	m = step(t, m, keyMsg("L"))
	m, cmd = stepCmd(m, keyMsg("y"))
	m, _, _ = runScan(t, m, cmd)
	if _, n := r.ran(); n != 1 || r.repairs[0].Jobs[0].JobName != "send_email" || r.repairs[0].Jobs[0].LockAfter != 6 {
		t.Fatalf("repairs %+v", r.repairs)
	}
	if !strings.Contains(statusOf(m), "repaired the locks of send_email: lock 6") {
		t.Fatalf("status %q", statusOf(m))
	}
	// The refresh after it: TestDriveRepairLocks.
	if e := d.audit.entries[len(d.audit.entries)-1]; e.Action != "repair-locks" || strings.Join(e.Targets, ",") != "send_email" {
		t.Fatalf("audit entry %+v", e)
	}
}

func TestReadOnlyHidesRepairsKeepsScan(t *testing.T) {
	o, _, sc, r := repairOptions()
	o.ReadOnly = true
	m := newScanTest(t, o, 120, 30)
	for _, v := range []string{"Pools", "Job types", "Orphans"} {
		m = toView(t, m, v)
		m = step(t, m, keyMsg("G"))
		m = step(t, m, keyMsg("?"))
		view := withoutStatus(m.View())
		if strings.Contains(view, "requeue") || strings.Contains(view, "repair locks") {
			t.Fatalf("read-only help in %s mentions a repair:\n%s", v, view)
		}
		if !strings.Contains(view, "scan orphans") {
			t.Fatalf("read-only help in %s lacks the scan:\n%s", v, view)
		}
		m = step(t, m, keyMsg("esc"))
		for k, hint := range map[string]string{"R": "read-only: requeue is disabled", "L": "read-only: repair locks is disabled"} {
			m = step(t, m, keyMsg(k))
			if view := m.View(); strings.Contains(view, "y: run it") || !strings.Contains(view, hint) {
				t.Fatalf("%s in read-only %s: a dialog, or no %q:\n%s", k, v, hint, view)
			}
		}
		if m = step(t, m, keyMsg("y")); actionRunning(m) {
			t.Fatalf("y in read-only %s started an action", v)
		}
	}
	if a, b := r.ran(); a+b != 0 {
		t.Fatal("read-only ran a repair")
	}
	started, _, _ := sc.counts()
	m, cmd := stepCmd(m, keyMsg("o"))
	runScan(t, m, cmd)
	if now, _, _ := sc.counts(); now != started+1 {
		t.Fatal("o did not scan in read-only mode")
	}
	// Without read-only the same help does show them.
	o.ReadOnly = false
	m = toView(t, step(t, newScanTest(t, o, 120, 30), keyMsg("?")), "Orphans")
	if !strings.Contains(m.View(), "requeue") {
		t.Fatal("help never mentions requeue: the test above proves nothing")
	}
}

func TestGoldenRepairs(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		keys []string
	}{
		{"orphans", 100, 24, []string{"tab", "tab"}},
		{"orphans_narrow", 80, 24, []string{"tab", "tab"}},
		{"requeue_dialog", 100, 30, []string{"tab", "tab", "R"}},
		{"requeue_dialog_narrow", 80, 24, []string{"tab", "tab", "R"}},
		{"requeue_dead_pool_dialog", 100, 30, []string{"j", "enter", "R"}},
		{"repair_locks_dialog", 100, 30, []string{"tab", "G", "L"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, _, _, _ := repairOptions()
			m := newScanTest(t, o, tc.w, tc.h)
			for _, k := range tc.keys {
				if k == "enter" {
					m = enter(t, m)
					continue
				}
				m = step(t, m, keyMsg(k))
			}
			view := m.View()
			checkScreen(t, view, tc.w, tc.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// withoutStatus is a view without the lines of the read-only hints, for
// tests that look at the help under them.
func withoutStatus(view string) string {
	var keep []string
	for _, l := range strings.Split(view, "\n") {
		if !strings.HasPrefix(l, "read-only: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
