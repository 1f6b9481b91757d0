package model_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

var now = time.Unix(1_700_000_000, 0)

func hbAt(age time.Duration) *model.Heartbeat {
	// heartbeat_at is whole seconds; now carries the sub-second part.
	return &model.Heartbeat{HeartbeatAt: now.Add(-age).Unix()}
}

func TestClassify(t *testing.T) {
	const ten = model.DefaultDeadAfter
	tests := []struct {
		name      string
		hb        *model.Heartbeat
		now       time.Time
		deadAfter time.Duration
		want      model.Status
	}{
		{"no heartbeat", nil, now, ten, model.StatusDead},
		{"heartbeat_at missing", &model.Heartbeat{HeartbeatAtMissing: true, HeartbeatAt: now.Unix()}, now, ten, model.StatusDead},
		{"heartbeat_at malformed is never dead", &model.Heartbeat{HeartbeatAtMalformed: true}, now, ten, model.StatusLate},
		{"just beat", hbAt(0), now, ten, model.StatusAlive},
		{"beat from the future (clock skew)", hbAt(-30 * time.Second), now, ten, model.StatusAlive},
		{"5s: one beat period", hbAt(5 * time.Second), now, ten, model.StatusAlive},
		{"exactly 7s is not late yet", hbAt(7 * time.Second), now, ten, model.StatusAlive},
		{"7s and a bit is late", hbAt(7 * time.Second), now.Add(time.Millisecond), ten, model.StatusLate},
		{"8s", hbAt(8 * time.Second), now, ten, model.StatusLate},
		{"10s less 1ns is late", hbAt(10 * time.Second), now.Add(-time.Nanosecond), ten, model.StatusLate},
		{"exactly 10s is dead (upstream: alive only while heartbeat_at+10s is after now)", hbAt(10 * time.Second), now, ten, model.StatusDead},
		{"11s", hbAt(11 * time.Second), now, ten, model.StatusDead},
		{"a day", hbAt(24 * time.Hour), now, ten, model.StatusDead},
		{"short cut-off: 3s is dead", hbAt(3 * time.Second), now, 3 * time.Second, model.StatusDead},
		{"short cut-off: 2s is alive", hbAt(2 * time.Second), now, 3 * time.Second, model.StatusAlive},
		{"long cut-off: 30s is late", hbAt(30 * time.Second), now, time.Minute, model.StatusLate},
		{"long cut-off: 60s is dead", hbAt(60 * time.Second), now, time.Minute, model.StatusDead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := model.Classify(tt.hb, tt.now, tt.deadAfter); got != tt.want {
				t.Errorf("Classify = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDrifted(t *testing.T) {
	tests := []struct {
		lock, info, inProgress int64
		want                   bool
	}{
		{0, 0, 0, false},
		{3, 3, 3, false},
		{3, 3, 2, true},
		{3, 2, 2, true},
		{2, 3, 3, true},
		{-1, 0, 0, true},
	}
	for _, tt := range tests {
		if got := model.Drifted(tt.lock, tt.info, tt.inProgress); got != tt.want {
			t.Errorf("Drifted(%d, %d, %d) = %v, want %v", tt.lock, tt.info, tt.inProgress, got, tt.want)
		}
	}
}

func fixture() *model.Snapshot {
	return &model.Snapshot{
		Namespace: "work",
		RedisTime: now.Add(300 * time.Millisecond),
		Pools: []model.Pool{
			{ID: "alive-b", Heartbeat: hbAt(2 * time.Second), InProgress: map[string]int64{"email": 1}, LockInfo: map[string]int64{"email": 1}},
			{ID: "dead-old", Heartbeat: hbAt(time.Hour), InProgress: map[string]int64{"email": 2, "resize": 1}, LockInfo: map[string]int64{"email": 2, "resize": 1}},
			{ID: "alive-a", Heartbeat: hbAt(2 * time.Second)},
			{ID: "late", Heartbeat: hbAt(8 * time.Second)},
			{ID: "dead-none"},
			{ID: "dead-new", Heartbeat: hbAt(20 * time.Second)},
			{ID: "alive-old", Heartbeat: hbAt(4 * time.Second), Warnings: []string{"heartbeat pid \"x\" is not a whole number"}},
		},
		JobTypes: []model.JobType{
			{Name: "resize", Lock: 1, LockInfo: map[string]int64{"dead-old": 1}, Queued: 2, OldestEnqueuedAt: now.Add(-90 * time.Second).Unix()},
			// lock_info 0 of a cleanly stopped pool: normal.
			{Name: "email", Lock: 3, LockInfo: map[string]int64{"dead-old": 2, "alive-b": 1, "stopped": 0}},
			// drift: lock held by nobody, at max_concurrency.
			{Name: "stuck", Lock: 2, MaxConcurrency: 2, Queued: 10, OldestEnqueuedAt: now.Add(5 * time.Second).Unix()},
		},
	}
}

func TestAnalyze(t *testing.T) {
	snap := fixture()
	model.Analyze(snap, model.DefaultDeadAfter)

	var order []string
	for _, p := range snap.Pools {
		order = append(order, p.ID+":"+string(p.Status))
	}
	want := []string{"dead-none:dead", "dead-old:dead", "dead-new:dead", "late:late", "alive-old:alive", "alive-a:alive", "alive-b:alive"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("pools\n got %v\nwant %v", order, want)
	}
	if snap.DeadAfter != model.DefaultDeadAfter {
		t.Errorf("DeadAfter %v", snap.DeadAfter)
	}
	if p, _ := snap.Pool("dead-none"); p.HeartbeatAge != nil {
		t.Errorf("age of a missing heartbeat: %v", *p.HeartbeatAge)
	}
	if p, _ := snap.Pool("late"); p.HeartbeatAge == nil || *p.HeartbeatAge != 8300*time.Millisecond {
		t.Errorf("late age %v", p.HeartbeatAge)
	}

	var jobs []string
	for _, jt := range snap.JobTypes {
		jobs = append(jobs, jt.Name)
	}
	if !reflect.DeepEqual(jobs, []string{"email", "resize", "stuck"}) {
		t.Errorf("job types %v", jobs)
	}
	email, _ := snap.JobType("email")
	if email.InProgress != 3 || email.LockInfoTotal != 3 || email.Drift || email.Latency != nil {
		t.Errorf("email %+v", email)
	}
	resize, _ := snap.JobType("resize")
	if resize.InProgress != 1 || resize.Drift || resize.Latency == nil || *resize.Latency != 90300*time.Millisecond {
		t.Errorf("resize %+v latency %v", resize, resize.Latency)
	}
	stuck, _ := snap.JobType("stuck")
	if !stuck.Drift || stuck.Latency == nil || *stuck.Latency != 0 {
		t.Errorf("stuck %+v (a job enqueued in the future has latency 0)", stuck)
	}

	var got []string
	for _, f := range snap.Findings {
		got = append(got, f.Kind+" "+f.Subject)
	}
	wantF := []string{
		"dead_pool dead-none", "dead_pool dead-old", "dead_pool dead-new",
		"late_pool late",
		"drift stuck",
		"warning alive-old",
	}
	if !reflect.DeepEqual(got, wantF) {
		t.Errorf("findings\n got %v\nwant %v", got, wantF)
	}
	for _, f := range snap.Findings {
		switch f.Subject {
		case "dead-old":
			if !strings.Contains(f.Detail, "3 jobs in progress") || !strings.Contains(f.Detail, "1h00m") {
				t.Errorf("dead-old detail %q", f.Detail)
			}
		case "dead-none":
			if !strings.Contains(f.Detail, "heartbeat missing") {
				t.Errorf("dead-none detail %q", f.Detail)
			}
		case "stuck":
			if !strings.Contains(f.Detail, "blocks every worker") {
				t.Errorf("stuck detail %q", f.Detail)
			}
		}
	}
	if !snap.HasProblems() {
		t.Error("HasProblems = false")
	}
	if dead := snap.DeadPools(); !reflect.DeepEqual(dead, []string{"dead-none", "dead-old", "dead-new"}) {
		t.Errorf("DeadPools %v", dead)
	}
}

func TestAnalyzeIsIdempotent(t *testing.T) {
	a, b := fixture(), fixture()
	model.Analyze(a, model.DefaultDeadAfter)
	model.Analyze(b, model.DefaultDeadAfter)
	model.Analyze(b, model.DefaultDeadAfter)
	if !reflect.DeepEqual(a, b) {
		t.Error("a second Analyze changed the snapshot")
	}
}

func TestAnalyzeDeadAfter(t *testing.T) {
	snap := fixture()
	model.Analyze(snap, time.Minute)
	for _, p := range snap.Pools {
		want := model.StatusAlive
		switch p.ID {
		case "dead-none", "dead-old":
			want = model.StatusDead
		case "late", "dead-new":
			want = model.StatusLate
		}
		if p.Status != want {
			t.Errorf("%s: %s, want %s with a 1m cut-off", p.ID, p.Status, want)
		}
	}
}

func TestHasProblems(t *testing.T) {
	tests := []struct {
		name string
		snap model.Snapshot
		want bool
	}{
		{"empty", model.Snapshot{}, false},
		{"only alive pools", model.Snapshot{Pools: []model.Pool{{ID: "a", Heartbeat: hbAt(0)}}}, false},
		{"a late pool is not a problem yet", model.Snapshot{Pools: []model.Pool{{ID: "a", Heartbeat: hbAt(8 * time.Second)}}}, false},
		{"warnings are not problems", model.Snapshot{Warnings: []string{"x"}}, false},
		{"lock_info 0 of a stopped pool", model.Snapshot{JobTypes: []model.JobType{{Name: "j", LockInfo: map[string]int64{"gone": 0}}}}, false},
		{"dead pool", model.Snapshot{Pools: []model.Pool{{ID: "a"}}}, true},
		{"drift", model.Snapshot{JobTypes: []model.JobType{{Name: "j", Lock: 1}}}, true},
		{"orphan", model.Snapshot{Orphans: []model.InProgressList{{Key: "k", JobName: "j", PoolID: "p", Length: 1}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := tt.snap
			snap.RedisTime = now
			model.Analyze(&snap, model.DefaultDeadAfter)
			if got := snap.HasProblems(); got != tt.want {
				t.Errorf("HasProblems = %v, want %v (findings %+v)", got, tt.want, snap.Findings)
			}
		})
	}
}

func TestFormatAge(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{999 * time.Millisecond, "0s"},
		{4 * time.Second, "4s"},
		{59 * time.Second, "59s"},
		{60 * time.Second, "1m00s"},
		{125 * time.Second, "2m05s"},
		{3599 * time.Second, "59m59s"},
		{3600 * time.Second, "1h00m"},
		{3*time.Hour + 2*time.Minute + 59*time.Second, "3h02m"},
		{24*time.Hour - time.Second, "23h59m"},
		{24 * time.Hour, "1d00h"},
		{52 * time.Hour, "2d04h"},
		{400 * 24 * time.Hour, "400d00h"},
		{-4 * time.Second, "-4s"},
		{-90 * time.Second, "-1m30s"},
	}
	for _, tt := range tests {
		if got := model.FormatAge(tt.d); got != tt.want {
			t.Errorf("FormatAge(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestSplitList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{",", nil},
		{",,,", nil},
		{"a", []string{"a"}},
		{"a,b", []string{"a", "b"}},
		{",a,,b,", []string{"a", "b"}},
		{"report:daily,email", []string{"report:daily", "email"}},
		{" a", []string{" a"}},
	}
	for _, tt := range tests {
		if got := model.SplitList(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJobNames(t *testing.T) {
	snap := &model.Snapshot{
		JobTypes: []model.JobType{{Name: "b"}, {Name: "a"}},
		Pools:    []model.Pool{{ID: "p", Heartbeat: &model.Heartbeat{JobNames: []string{"c", "a"}}}, {ID: "q"}},
	}
	if got := model.JobNames(snap); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("JobNames = %v", got)
	}
}
