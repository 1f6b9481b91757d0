package model_test

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

func TestWorkersRunningAndLongRunning(t *testing.T) {
	snap := &model.Snapshot{
		RedisTime: now,
		Pools:     []model.Pool{{ID: "p1", Heartbeat: hbAt(time.Second)}},
		Workers: []model.Worker{
			{WorkerID: "w1", PoolID: "p1", Busy: true, JobName: "email", JobID: "j1", StartedAt: now.Unix() - 700},
			{WorkerID: "w2", PoolID: "p1"},
			{WorkerID: "w3", PoolID: "p1", Busy: true, JobName: "resize", JobID: "j3", StartedAt: now.Unix() - 30},
			{WorkerID: "w4", PoolID: "p1", Busy: true, JobName: "odd", JobID: "j4"},
			{WorkerID: "w5", PoolID: "p1", Busy: true, JobName: "skew", JobID: "j5", StartedAt: now.Unix() + 60},
			{WorkerID: "w6", PoolID: "p1", Busy: true, JobName: "sync", JobID: "j6", StartedAt: now.Unix() - 7200},
		},
	}
	model.Analyze(snap, model.DefaultDeadAfter)
	if snap.LongAfter != model.DefaultLongAfter {
		t.Errorf("LongAfter = %v, want the default", snap.LongAfter)
	}
	running := map[string]string{}
	for _, w := range snap.Workers {
		r := "nil"
		if w.Running != nil {
			r = w.Running.String()
		}
		running[w.WorkerID] = r
	}
	want := map[string]string{"w1": "11m40s", "w2": "nil", "w3": "30s", "w4": "nil", "w5": "0s", "w6": "2h0m0s"}
	for id, r := range want {
		if running[id] != r {
			t.Errorf("%s running %s, want %s", id, running[id], r)
		}
	}
	var long []string
	for _, f := range snap.Findings {
		if f.Kind == model.FindingLongRunning {
			long = append(long, f.Subject+": "+f.Detail)
		}
	}
	wantLong := "w6: job sync j6 of pool p1 running for 2h00m (over 10m00s)\n" +
		"w1: job email j1 of pool p1 running for 11m40s (over 10m00s)"
	if got := strings.Join(long, "\n"); got != wantLong {
		t.Errorf("long_running findings:\n%s\nwant\n%s", got, wantLong)
	}
	if snap.HasProblems() {
		t.Errorf("long-running jobs alone count as problems: %+v", snap.Findings)
	}

	snap.LongAfter = time.Hour
	snap.Findings = model.Findings(snap)
	n := 0
	for _, f := range snap.Findings {
		if f.Kind == model.FindingLongRunning {
			n++
		}
	}
	if n != 1 {
		t.Errorf("with --long-after 1h: %d long_running findings, want 1", n)
	}

	var order []string
	for _, w := range model.BusyWorkers(snap.Workers) {
		order = append(order, w.WorkerID)
	}
	if got := strings.Join(order, " "); got != "w6 w1 w3 w5 w4" {
		t.Errorf("busy workers in order %s, want w6 w1 w3 w5 w4", got)
	}
}

func TestWorkerLongRunningBoundary(t *testing.T) {
	d := 10 * time.Minute
	w := model.Worker{Busy: true, Running: &d}
	if w.LongRunning(10 * time.Minute) {
		t.Error("exactly the cut-off counts as long-running")
	}
	d2 := d + time.Millisecond
	w.Running = &d2
	if !w.LongRunning(10 * time.Minute) {
		t.Error("just past the cut-off is not long-running")
	}
	w.Busy = false
	if w.LongRunning(time.Second) {
		t.Error("an idle worker is long-running")
	}
}
