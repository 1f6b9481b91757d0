package model

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// healthSnap is a namespace at now: one live pool "p1" of 4 workers
// serving jobs, the job types given.
func healthSnap(now time.Time, jobs []string, types ...JobType) *Snapshot {
	snap := &Snapshot{RedisTime: now, JobTypes: types, Pools: []Pool{{ID: "p1",
		Heartbeat: &Heartbeat{HeartbeatAt: now.Unix(), Concurrency: 4, JobNames: jobs, WorkerIDs: []string{"w1", "w2", "w3", "w4"}}}}}
	Analyze(snap, DefaultDeadAfter)
	return snap
}

// failures are n failures of err spread evenly over [from, to) seconds
// before now.
func failures(now time.Time, n int, from, to time.Duration, err string) []Failure {
	var out []Failure
	for i := 0; i < n; i++ {
		at := now.Add(-from + time.Duration(i)*(from-to)/time.Duration(n))
		out = append(out, Failure{At: at.Unix(), Err: err, Dead: true})
	}
	return out
}

func TestAssessFailures(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := DefaultHealthLimits()
	burst := append(failures(now, 200, 4*time.Minute, 0, "gateway timeout after Ns (HTTP 504)"),
		failures(now, 50, 4*time.Minute, 0, "card declined")...)
	tests := []struct {
		name    string
		fs      []Failure
		failing bool
		want    []string
	}{
		{"a burst after a quiet hour", burst, true,
			[]string{"250 failures in the last 5m00s", "floor 5/min", "3 x the 1h00m before", "80% \"gateway timeout"}},
		{"a steady trickle at the same rate for an hour",
			failures(now, 13*50, 65*time.Minute, 0, "boom"), false, nil},
		{"under the floor", failures(now, 20, 5*time.Minute, 0, "boom"), false, nil},
		{"over the floor but not over the multiple",
			append(failures(now, 40, 5*time.Minute, 0, "boom"), failures(now, 300, 65*time.Minute, 5*time.Minute, "boom")...), false, nil},
		{"old failures alone", failures(now, 500, 3*time.Hour, 2*time.Hour, "boom"), false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := healthSnap(now, []string{"charge"}, JobType{Name: "charge"})
			h := AssessJobs(snap, HealthInput{Failures: &FailureLog{Jobs: map[string][]Failure{"charge": tc.fs}}}, l)
			got := h.Of("charge")
			if tc.failing != (len(got) == 1 && got[0].Kind == FindingFailing) {
				t.Fatalf("failing = %v, problems %+v", !tc.failing, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0].Detail, w) {
					t.Errorf("detail %q lacks %q", got[0].Detail, w)
				}
			}
		})
	}
}

func TestAssessFailuresShortAndSince(t *testing.T) {
	now := time.Unix(1_800_000_000, 0) // 08:00 UTC
	fs := append(failures(now, 160, 4*time.Minute, 0, "gateway timeout"), failures(now, 40, 4*time.Minute, 0, "declined")...)
	snap := healthSnap(now, []string{"charge"}, JobType{Name: "charge"})
	h := AssessJobs(snap, HealthInput{Failures: &FailureLog{Jobs: map[string][]Failure{"charge": fs}}}, DefaultHealthLimits())
	p := h.Of("charge")[0]
	if p.Short != "failing 40/min (80% gateway timeout)" {
		t.Errorf("short = %q", p.Short)
	}
	if want := now.Add(-4 * time.Minute).Unix(); p.Since != want {
		t.Errorf("since = %s, want %s", time.Unix(p.Since, 0).UTC(), time.Unix(want, 0).UTC())
	}
	if p.Errors[0] != (ErrorShare{Err: "gateway timeout", Count: 160}) {
		t.Errorf("top error = %+v", p.Errors[0])
	}
	total := 0
	for _, n := range h.Minutes[54:] {
		total += n
	}
	if total != 200 || len(h.Minutes) != 60 {
		t.Errorf("minutes = %v", h.Minutes)
	}
}

func TestAssessFailuresLimitsInText(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := DefaultHealthLimits()
	l.FailWindow, l.FailFloor, l.FailMultiple = time.Minute, 2, 10
	snap := healthSnap(now, []string{"charge"}, JobType{Name: "charge"})
	h := AssessJobs(snap, HealthInput{Failures: &FailureLog{Jobs: map[string][]Failure{"charge": failures(now, 5, 50*time.Second, 0, "x")}}}, l)
	p := h.Of("charge")
	if len(p) != 1 || !strings.Contains(p[0].Detail, "in the last 1m00s, 5/min (floor 2/min, 10 x the 1h00m before: 0/min)") {
		t.Fatalf("problems %+v", p)
	}
}

func TestAssessQueues(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	ago := func(d time.Duration) int64 { return now.Add(-d).Unix() }
	busy := func(job string, n int64) map[string]int64 { return map[string]int64{job: n} }
	tests := []struct {
		name     string
		jobs     []string // the pool's job_names
		inProg   map[string]int64
		types    []JobType
		workers  []Worker
		wantKind map[string]string // job -> kind, "" none
	}{
		{"a short wait is nothing", []string{"a"}, nil,
			[]JobType{{Name: "a", Queued: 5, OldestEnqueuedAt: ago(30 * time.Second)}}, nil, map[string]string{"a": ""}},
		{"a long wait with free workers is a backlog", []string{"a"}, nil,
			[]JobType{{Name: "a", Queued: 5, OldestEnqueuedAt: ago(6 * time.Minute)}}, nil, map[string]string{"a": FindingBacklog}},
		{"every worker busy with another type is starving", []string{"a", "export"}, busy("export", 4),
			[]JobType{{Name: "a", Queued: 344, OldestEnqueuedAt: ago(11 * time.Minute)}, {Name: "export", Lock: 4, LockInfo: map[string]int64{"p1": 4}}},
			nil, map[string]string{"a": FindingStarving, "export": ""}},
		{"a lock at max_concurrency held by running jobs is starving", []string{"a"}, busy("a", 2),
			[]JobType{{Name: "a", Queued: 9, OldestEnqueuedAt: ago(2 * time.Minute), Lock: 2, MaxConcurrency: 2, LockInfo: map[string]int64{"p1": 2}}},
			nil, map[string]string{"a": FindingStarving}},
		{"busy but briefly is nothing", []string{"a"}, busy("a", 4),
			[]JobType{{Name: "a", Queued: 9, OldestEnqueuedAt: ago(20 * time.Second), Lock: 4, LockInfo: map[string]int64{"p1": 4}}},
			nil, map[string]string{"a": ""}},
		{"paused past the limit", []string{"a"}, nil,
			[]JobType{{Name: "a", Queued: 85, Paused: true, OldestEnqueuedAt: ago(20 * time.Minute)}}, nil, map[string]string{"a": FindingPausedBacklog}},
		{"paused briefly is nothing", []string{"a"}, nil,
			[]JobType{{Name: "a", Queued: 85, Paused: true, OldestEnqueuedAt: ago(2 * time.Minute)}}, nil, map[string]string{"a": ""}},
		{"no live pool serves it", []string{"b"}, nil,
			[]JobType{{Name: "a", Queued: 3, OldestEnqueuedAt: ago(2 * time.Minute)}, {Name: "b"}}, nil, map[string]string{"a": FindingUnserved, "b": ""}},
		{"workers past long-after while a type waits are stuck", []string{"a", "export"}, busy("export", 4),
			[]JobType{{Name: "a", Queued: 344, OldestEnqueuedAt: ago(11 * time.Minute)}, {Name: "export", Lock: 4, LockInfo: map[string]int64{"p1": 4}}},
			[]Worker{{WorkerID: "w1", Busy: true, JobName: "export", StartedAt: ago(11 * time.Minute)},
				{WorkerID: "w2", Busy: true, JobName: "export", StartedAt: ago(11 * time.Minute), CheckinAt: ago(10 * time.Minute)},
				{WorkerID: "w3", Busy: true, JobName: "export", StartedAt: ago(time.Minute)}},
			map[string]string{"a": FindingStarving, "export": FindingStuck}},
		{"long jobs with nothing waiting are not stuck", []string{"export"}, busy("export", 1),
			[]JobType{{Name: "export", Lock: 1, LockInfo: map[string]int64{"p1": 1}}},
			[]Worker{{WorkerID: "w1", Busy: true, JobName: "export", StartedAt: ago(time.Hour)}}, map[string]string{"export": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := healthSnap(now, tc.jobs, tc.types...)
			snap.Pools[0].InProgress = tc.inProg
			Analyze(snap, DefaultDeadAfter)
			h := AssessJobs(snap, HealthInput{Workers: tc.workers}, DefaultHealthLimits())
			for job, want := range tc.wantKind {
				got := h.Of(job)
				switch {
				case want == "" && len(got) > 0:
					t.Errorf("%s: got %+v, want none", job, got)
				case want != "" && (len(got) != 1 || got[0].Kind != want):
					t.Errorf("%s: got %+v, want %s", job, got, want)
				}
			}
		})
	}
}

func TestAssessStarvingSaysWhatHoldsTheSlots(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	ago := func(d time.Duration) int64 { return now.Add(-d).Unix() }
	snap := healthSnap(now, []string{"send_sms", "export"},
		JobType{Name: "send_sms", Queued: 344, OldestEnqueuedAt: ago(11 * time.Minute)},
		JobType{Name: "export", Lock: 4, LockInfo: map[string]int64{"p1": 4}})
	snap.Pools[0].InProgress = map[string]int64{"export": 4}
	Analyze(snap, DefaultDeadAfter)
	var ws []Worker
	for i := 1; i <= 4; i++ {
		ws = append(ws, Worker{WorkerID: fmt.Sprintf("w%d", i), Busy: true, JobName: "export", StartedAt: ago(11 * time.Minute)})
	}
	h := AssessJobs(snap, HealthInput{Workers: ws}, DefaultHealthLimits())
	p := h.Of("send_sms")[0]
	if p.Short != "waiting 11m (export x4 for 11m)" {
		t.Errorf("short = %q", p.Short)
	}
	if !strings.Contains(p.Detail, "(over 1m00s)") || !strings.Contains(p.Detail, "every one of the 4 workers of its 1 live pool is busy") {
		t.Errorf("detail = %q", p.Detail)
	}
	if h.Problems[0].Kind != FindingStarving || h.Problems[1].Kind != FindingStuck {
		t.Errorf("order: %+v", h.Problems)
	}
	snap.Jobs = h
	snap.Findings = Findings(snap)
	if !snap.HasProblems() {
		t.Error("job health problems do not count in HasProblems")
	}
}

func TestHealthLimitsCheck(t *testing.T) {
	l := DefaultHealthLimits()
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	l.FailMultiple = 0.5
	if err := l.Check(); err == nil || !strings.Contains(err.Error(), "--fail-multiple") {
		t.Errorf("err = %v", err)
	}
}

// WithJobHealth puts the findings where Findings does, replacing old ones.
func TestWithJobHealth(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	snap := healthSnap(now, []string{"b"}, JobType{Name: "a", Queued: 3, OldestEnqueuedAt: now.Add(-time.Hour).Unix()}, JobType{Name: "b"})
	snap.Pools = append(snap.Pools, Pool{ID: "dead"})
	snap.Warnings = []string{"w"}
	Analyze(snap, DefaultDeadAfter)
	snap.Jobs = AssessJobs(snap, HealthInput{}, DefaultHealthLimits())
	want := Findings(snap)
	stale := append([]Finding{{Kind: FindingBacklog, Subject: "old"}}, want...)
	got := WithJobHealth(stale, snap.Jobs)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// A lock at max_concurrency held by a dead pool is not starving: the dead
// pool and the lock are findings of their own, with their fix.
func TestAssessStarvingNotForDeadPoolsLocks(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	snap := healthSnap(now, []string{"a"}, JobType{Name: "a", Queued: 2, OldestEnqueuedAt: now.Add(-time.Hour).Unix(),
		Lock: 1, MaxConcurrency: 1, LockInfo: map[string]int64{"dead": 1}})
	snap.Pools = append(snap.Pools, Pool{ID: "dead", InProgress: map[string]int64{"a": 1}, Heartbeat: &Heartbeat{HeartbeatAt: now.Add(-time.Hour).Unix(), JobNames: []string{"a"}, Concurrency: 1}})
	Analyze(snap, DefaultDeadAfter)
	h := AssessJobs(snap, HealthInput{}, DefaultHealthLimits())
	if p := h.Of("a"); len(p) != 1 || p[0].Kind != FindingBacklog {
		t.Errorf("problems %+v, want a backlog alone", p)
	}
}

// The workers' observations are indexed by ID only when a look-up needs
// them: 1,000 dead pools of 10 workers each, their job types queued and
// unserved, need none, and the index of 10,000 workers was most of what
// the job health of a snapshot allocated (about 850 KB).
func TestAssessJobsIndexesWorkersOnlyWhenNeeded(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	snap := &Snapshot{Namespace: "work", RedisTime: now,
		JobTypes: []JobType{{Name: "resize", Queued: 40, OldestEnqueuedAt: now.Add(-2 * time.Minute).Unix()}}}
	for p := 0; p < 1000; p++ {
		pool := Pool{ID: fmt.Sprintf("%024x", p), Heartbeat: &Heartbeat{HeartbeatAt: now.Add(-time.Hour).Unix(), Concurrency: 10, JobNames: []string{"resize"}}}
		for w := 0; w < 10; w++ {
			id := fmt.Sprintf("%024x", p*10+w)
			pool.Heartbeat.WorkerIDs = append(pool.Heartbeat.WorkerIDs, id)
			snap.Workers = append(snap.Workers, Worker{WorkerID: id, PoolID: pool.ID})
		}
		snap.Pools = append(snap.Pools, pool)
	}
	Analyze(snap, DefaultDeadAfter)
	var h *JobHealth
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h = AssessJobs(snap, HealthInput{}, DefaultHealthLimits())
	runtime.ReadMemStats(&after)
	if got := h.Of("resize"); len(got) != 1 || got[0].Kind != FindingUnserved {
		t.Fatalf("problems of resize %+v, want unserved", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("the job health of 1,000 dead pools allocated %d bytes, want under 64 KB", n)
	}

	// A live pool looks its workers up, and finds them.
	busy := now.Add(-time.Hour).Unix()
	live := healthSnap(now, []string{"resize"}, JobType{Name: "resize", Queued: 40, OldestEnqueuedAt: now.Add(-2 * time.Minute).Unix()})
	for i, id := range live.Pools[0].Heartbeat.WorkerIDs {
		live.Workers = append(live.Workers, Worker{WorkerID: id, PoolID: "p1", Busy: true, JobName: "resize", JobID: fmt.Sprint(i), StartedAt: busy})
	}
	live.LongAfter = time.Minute
	if got := AssessJobs(live, HealthInput{}, DefaultHealthLimits()).Of("resize"); len(got) == 0 || !strings.Contains(got[0].Detail, "resize") {
		t.Errorf("problems of resize with every worker busy %+v, want what holds the slots", got)
	}
}
