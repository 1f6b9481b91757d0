package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// updateGolden reports whether -update was given (the flag is the one
// the golden-file helpers linked into the tests declare).
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// tableFixture is a namespace at a bad moment, with IDs as gocraft/work
// makes them (24 hex characters): a live pool, a dead pool holding jobs, a
// drifted lock at its cap, an orphaned list, a job running for ever.
func tableFixture() *model.Snapshot {
	now := time.Unix(1795966215, 0)
	hb := func(at int64, host string, pid int64, jobs, workers string) *model.Heartbeat {
		return &model.Heartbeat{HeartbeatAt: at, StartedAt: at - 3600, Host: host, PID: pid, Concurrency: 10,
			JobNames: model.SplitList(jobs), WorkerIDs: model.SplitList(workers)}
	}
	age := func(d time.Duration) *time.Duration { return &d }
	snap := &model.Snapshot{
		Namespace: "myapp", RedisTime: now, LongAfter: 10 * time.Minute,
		Pools: []model.Pool{
			{ID: "0f3c9a7e2b1d4c6a8e9f0b1c", Heartbeat: hb(now.Unix()-2, "web-1", 4242, "charge_card,send_email", "5d6e7f8a9b0c1d2e3f4a5b6c"),
				InProgress: map[string]int64{"send_email": 1}, LockInfo: map[string]int64{"send_email": 1}},
			{ID: "bbb2b0f6a8f5c7e1d4a9c3e0", Heartbeat: hb(now.Unix()-100, "worker-2", 31337, "charge_card,send_email", "0c9e4a1b2f3d4e5f6a7b8c9d"),
				InProgress: map[string]int64{"charge_card": 2, "send_email": 1}, LockInfo: map[string]int64{"charge_card": 2, "send_email": 1}},
		},
		JobTypes: []model.JobType{
			{Name: "charge_card", Queued: 12, OldestEnqueuedAt: now.Unix() - 95, Lock: 5, MaxConcurrency: 5,
				LockInfo: map[string]int64{"bbb2b0f6a8f5c7e1d4a9c3e0": 2}},
			{Name: "reconcile_ledger_accounts", Queued: 3},
			{Name: "send_email", Queued: 0, Lock: 2, LockInfo: map[string]int64{"0f3c9a7e2b1d4c6a8e9f0b1c": 1, "bbb2b0f6a8f5c7e1d4a9c3e0": 1}},
		},
		Workers: []model.Worker{
			{WorkerID: "0c9e4a1b2f3d4e5f6a7b8c9d", PoolID: "bbb2b0f6a8f5c7e1d4a9c3e0", Busy: true, JobName: "charge_card",
				JobID: "2f1e0d9c8b7a6f5e4d3c2b1a", StartedAt: now.Unix() - 1200, Checkin: "batch 3 of 7", HasCheckin: true},
			{WorkerID: "5d6e7f8a9b0c1d2e3f4a5b6c", PoolID: "0f3c9a7e2b1d4c6a8e9f0b1c", Busy: true, JobName: "send_email",
				JobID: "9a8b7c6d5e4f3a2b1c0d9e8f", StartedAt: now.Unix() - 4},
		},
		Orphans: []model.InProgressList{{Key: "myapp:jobs:send_email:ffff09e8d7c6b5a4f3e2d1c0:inprogress",
			JobName: "send_email", PoolID: "ffff09e8d7c6b5a4f3e2d1c0", Length: 3}},
		Sets: model.SetCounts{Retry: 5, Scheduled: 25, Dead: 26},
	}
	_ = age
	model.Analyze(snap, model.DefaultDeadAfter)
	return snap
}

// The table of snapshot puts the findings first and fits 80 columns, IDs
// shortened as the screen shortens them; --wide prints them whole. The
// lines are compared with golden files (go test ./cli -run
// TestSnapshotTableGolden -update rewrites them).
func TestSnapshotTableGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		wide   bool
	}{{"snapshot_80.golden", false}, {"snapshot_wide.golden", true}} {
		t.Run(tc.golden, func(t *testing.T) {
			var b strings.Builder
			if err := writeSnapshotTable(&b, tableFixture(), tc.wide); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			path := filepath.Join("testdata", tc.golden)
			if updateGolden() {
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s:\n%s\nwant:\n%s", path, out, want)
			}
			lines := strings.Split(out, "\n")
			if !strings.HasPrefix(lines[3], "FINDINGS (") {
				t.Errorf("the findings do not come first, after the summary:\n%s", out)
			}
			for _, l := range lines {
				if w := textsafe.Width(l); !tc.wide && w > 80 {
					t.Errorf("line of %d columns, want at most 80: %q", w, l)
				}
			}
			for _, l := range lines {
				if strings.HasPrefix(l, "dead ") {
					if full := strings.Contains(l, "bbb2b0f6a8f5c7e1d4a9c3e0"); full != tc.wide {
						t.Errorf("the dead pool's row has its full ID: %v, want %v: %q", full, tc.wide, l)
					}
				}
			}
			if !strings.Contains(lines[1], "1 dead pool") || !strings.Contains(lines[1], "dead jobs 26") {
				t.Errorf("the summary does not tell dead pools from dead jobs: %q", lines[1])
			}
		})
	}
}
