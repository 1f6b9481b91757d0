package model

import (
	"testing"
	"time"
)

// A backlog by growth: the wait grew at each of the last polls while the
// queue grew, the wait past StarveAfter; the wait limit alone otherwise.
func TestWaitGrowing(t *testing.T) {
	l := DefaultHealthLimits()
	s := func(q int64, w time.Duration) WaitSample { return WaitSample{Queued: q, Wait: w} }
	for _, tc := range []struct {
		name    string
		earlier []WaitSample
		now     WaitSample
		want    bool
	}{
		{"growing", []WaitSample{s(10, 70*time.Second), s(20, 80*time.Second)}, s(30, 90*time.Second), true},
		{"one poll only (snapshot)", nil, s(30, 90*time.Second), false},
		{"two polls", []WaitSample{s(20, 80*time.Second)}, s(30, 90*time.Second), false},
		{"wait fell once", []WaitSample{s(10, 85*time.Second), s(20, 80*time.Second)}, s(30, 90*time.Second), false},
		{"queue shrank", []WaitSample{s(30, 70*time.Second), s(20, 80*time.Second)}, s(25, 90*time.Second), false},
		{"short wait", []WaitSample{s(10, 10*time.Second), s(20, 20*time.Second)}, s(30, 30*time.Second), false},
		{"older samples ignored", []WaitSample{s(99, time.Hour), s(10, 70*time.Second), s(20, 80*time.Second)}, s(30, 90*time.Second), true},
	} {
		if got := WaitGrowing(tc.earlier, tc.now, l); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// AssessJobs names a growing queue under the wait limit a backlog, with
// the growth in its words; without the earlier polls it does not.
func TestAssessBacklogByGrowth(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	snap := &Snapshot{Namespace: "work", RedisTime: now,
		Pools:    []Pool{{ID: "p1", Heartbeat: &Heartbeat{HeartbeatAt: now.Unix(), Concurrency: 4, JobNames: []string{"resize"}}}},
		JobTypes: []JobType{{Name: "resize", Queued: 40, OldestEnqueuedAt: now.Add(-2 * time.Minute).Unix()}}}
	Analyze(snap, DefaultDeadAfter)
	earlier := map[string][]WaitSample{"resize": {{Queued: 10, Wait: 80 * time.Second}, {Queued: 25, Wait: 100 * time.Second}}}
	h := AssessJobs(snap, HealthInput{Waits: earlier}, DefaultHealthLimits())
	if len(h.Problems) != 1 || h.Problems[0].Kind != FindingBacklog || h.Problems[0].Short != "waiting 2m and growing" {
		t.Fatalf("problems %+v", h.Problems)
	}
	if h := AssessJobs(snap, HealthInput{}, DefaultHealthLimits()); len(h.Problems) != 0 {
		t.Errorf("one poll: %+v", h.Problems)
	}
}
