package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// blockedFixture is the fixture with send_email's lock at max_concurrency
// (dead pools hold 5 of its 10 slots) and report's jobs in an orphaned
// list the last scan found.
func blockedFixture() *model.Snapshot {
	s := fixture()
	for i := range s.JobTypes {
		if s.JobTypes[i].Name == "send_email" {
			s.JobTypes[i].Lock = 10
		}
	}
	s.Orphans = []model.InProgressList{{Key: "work:jobs:report:9999aaaa9999aaaa9999aaaa:inprogress",
		JobName: "report", PoolID: "9999aaaa9999aaaa9999aaaa", Length: 3}}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

// The marks and the reasons come from model.Explain's causes: the first
// names the numbers and the key that removes it, the others are counted.
func TestJobBlocks(t *testing.T) {
	k := defaultKeyMap()
	got := jobBlocks(blockedFixture(), nil, k)
	want := map[string]jobBlock{
		"send_email": {mark: markBlocked,
			reason: "dead pools hold 5 of send_email's 10 slots: X reaps them (+1 more cause)"},
		"resize_image": {mark: markHeld, reason: "1 job of resize_image held by dead pools: X reaps them"},
		"report": {mark: markOrphaned,
			reason: "3 jobs of report held in orphaned in-progress lists: R in Orphans requeues them"},
	}
	if len(got) != len(want) {
		t.Errorf("marked %d job types, want %d: %v", len(got), len(want), got)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}

	// The scan's orphans replace the snapshot's: none found, none marked.
	if b, ok := jobBlocks(blockedFixture(), []model.InProgressList{}, k)["report"]; ok {
		t.Errorf("report marked %+v although the last scan found no orphan", b)
	}

	// Every slot running a job of a live pool is BLOCKED too, with no key.
	s := &model.Snapshot{Namespace: "work", RedisTime: fixedNow, DeadAfter: model.DefaultDeadAfter,
		Pools: []model.Pool{{ID: "p1", Heartbeat: &model.Heartbeat{HeartbeatAt: fixedNow.Unix(), JobNames: []string{"charge"}, Concurrency: 2},
			InProgress: map[string]int64{"charge": 2}, LockInfo: map[string]int64{"charge": 2}}},
		JobTypes: []model.JobType{{Name: "charge", Queued: 4, Lock: 2, MaxConcurrency: 2, LockInfo: map[string]int64{"p1": 2}}},
	}
	model.Analyze(s, model.DefaultDeadAfter)
	b := jobBlocks(s, nil, k)["charge"]
	if b.mark != markBlocked || b.reason != "charge is saturated: every one of its 2 slots runs a job" {
		t.Errorf("saturated: got %+v", b)
	}
	s.JobTypes[0].Lock = 1
	if b, ok := jobBlocks(s, nil, k)["charge"]; ok {
		t.Errorf("a lock under max_concurrency is marked %+v", b)
	}
}

// At 80x24 the row says BLOCKED and the line under the list why, for the
// row under the cursor.
func TestGoldenJobTypesBlocked(t *testing.T) {
	o, _ := testOptions(staticSource(blockedFixture()))
	out := runProgram(t, o, 80, 24, waitText("worker-a"), keyMsg("tab"), waitText("LOCK/MAX"),
		keyMsg("j"), keyMsg("j"), waitText("reaps them"))
	checkScreen(t, out, 80, 24)
	for _, want := range []string{"BLOCKED", "HELD", "ORPHANED", "dead pools hold 5 of send_email's 10 slots: X reaps them"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on screen:\n%s", want, out)
		}
	}
	golden.RequireEqual(t, []byte(out))
}
