package reaper

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

func fixtureSnapshot() *model.Snapshot {
	now := time.Unix(1_800_000_000, 0)
	snap := &model.Snapshot{
		Namespace: "work",
		RedisTime: now,
		Pools: []model.Pool{
			{ID: "deadA", Heartbeat: &model.Heartbeat{HeartbeatAt: now.Unix() - 60, JobNames: []string{"email"}},
				InProgress: map[string]int64{"email": 3}, LockInfo: map[string]int64{"email": 3}},
			{ID: "deadB", Heartbeat: &model.Heartbeat{HeartbeatAt: now.Unix() - 30, JobNames: []string{"email", "sms"}},
				InProgress: map[string]int64{"email": 2}, LockInfo: map[string]int64{"email": 4, "sms": 1}},
			{ID: "nobeat", InProgress: map[string]int64{"sms": 1, "odd": 2}, LockInfo: map[string]int64{}},
			{ID: "live", Heartbeat: &model.Heartbeat{HeartbeatAt: now.Unix() - 1, JobNames: []string{"email"}},
				InProgress: map[string]int64{"email": 1}, LockInfo: map[string]int64{"email": 1}},
			{ID: "late", Heartbeat: &model.Heartbeat{HeartbeatAt: now.Unix() - 8, JobNames: []string{"email"}}},
		},
		JobTypes: []model.JobType{
			{Name: "email", Lock: 6, LockInfo: map[string]int64{"deadA": 3, "deadB": 4, "live": 1}},
			{Name: "sms", Lock: 0, LockInfo: map[string]int64{"deadB": 1}},
		},
	}
	model.Analyze(snap, model.DefaultDeadAfter)
	return snap
}

func TestNewPlan(t *testing.T) {
	snap := fixtureSnapshot()

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			targets Targets
			want    error
			text    string
		}{
			{Targets{PoolIDs: []string{"nosuch"}}, ErrUnknownPool, "nosuch"},
			{Targets{PoolIDs: []string{"deadA", "live"}}, ErrPoolAlive, "pool live is alive"},
			{Targets{PoolIDs: []string{"late"}}, ErrPoolAlive, "pool late is late"},
			{Targets{}, ErrNothingToDo, "no pool given"},
		} {
			_, err := NewPlan(snap, tc.targets)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("%+v: err %v, want %v containing %q", tc.targets, err, tc.want, tc.text)
			}
		}
		empty := &model.Snapshot{Namespace: "work", RedisTime: time.Unix(1, 0)}
		if _, err := NewPlan(empty, Targets{AllDead: true}); !errors.Is(err, ErrNothingToDo) {
			t.Errorf("all dead of nothing: %v", err)
		}
	})

	t.Run("all dead, locks cumulative in plan order", func(t *testing.T) {
		p, err := NewPlan(snap, Targets{PoolIDs: []string{"deadB"}, AllDead: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, pp := range p.Pools {
			ids = append(ids, pp.PoolID)
		}
		// deadB first (named), then the other dead pools in snapshot order.
		if got := strings.Join(ids, ","); got != "deadB,nobeat,deadA" {
			t.Fatalf("pools %s", got)
		}
		b := p.Pools[0]
		if b.HeartbeatMissing || b.HeartbeatAt != snap.RedisTime.Unix()-30 || strings.Join(b.JobNames, ",") != "email,sms" {
			t.Fatalf("deadB: %+v", b)
		}
		// email: 6 - 4 = 2; sms: 0 - 1 -> clamped 0.
		want := []JobPlan{
			{JobName: "email", InProgressKey: "work:jobs:email:deadB:inprogress", QueueKey: "work:jobs:email", Jobs: 2, LockBefore: 6, LockAfter: 2, LockInfoBefore: 4, LockInfoPresent: true},
			{JobName: "sms", InProgressKey: "work:jobs:sms:deadB:inprogress", QueueKey: "work:jobs:sms", Jobs: 0, LockBefore: 0, LockAfter: 0, LockInfoBefore: 1, LockInfoPresent: true},
		}
		if len(b.Jobs) != 2 || b.Jobs[0] != want[0] || b.Jobs[1] != want[1] {
			t.Fatalf("deadB jobs %+v", b.Jobs)
		}
		n := p.Pools[1]
		// No heartbeat: every known job type, plus the list found of "odd".
		if !n.HeartbeatMissing || strings.Join(n.JobNames, ",") != "email,sms,odd" {
			t.Fatalf("nobeat: %+v", n)
		}
		if len(n.Jobs) != 2 || n.Jobs[0].JobName != "sms" || n.Jobs[0].Jobs != 1 || n.Jobs[0].LockInfoPresent || n.Jobs[1].JobName != "odd" {
			t.Fatalf("nobeat jobs %+v", n.Jobs)
		}
		a := p.Pools[2]
		// email after deadB is 2; deadA holds 3 -> 0.
		if len(a.Jobs) != 1 || a.Jobs[0].LockBefore != 2 || a.Jobs[0].LockAfter != 0 {
			t.Fatalf("deadA jobs %+v", a.Jobs)
		}
		if p.TotalJobs() != 8 {
			t.Fatalf("total %d", p.TotalJobs())
		}

		var buf bytes.Buffer
		RenderReapPlan(&buf, p)
		out := buf.String()
		for _, s := range []string{"pool deadB (last heartbeat 30s ago)", "pool nobeat (no heartbeat)", "6 -> 2", "4 -> deleted",
			"Total: 8 jobs back to their queues, 3 pools removed."} {
			if !strings.Contains(out, s) {
				t.Errorf("render lacks %q:\n%s", s, out)
			}
		}
	})
}

func TestExpectedLock(t *testing.T) {
	for _, tc := range []struct{ lock, info, want int64 }{
		{5, 3, 2}, {2, 5, 0}, {-3, 0, 0}, {1, -2, 3}, {0, 0, 0},
	} {
		if got := ExpectedLock(tc.lock, tc.info); got != tc.want {
			t.Errorf("ExpectedLock(%d, %d) = %d, want %d", tc.lock, tc.info, got, tc.want)
		}
	}
}

func TestRenderResultStripsControls(t *testing.T) {
	var buf bytes.Buffer
	RenderReapResult(&buf, Result{Pools: []PoolResult{
		{PoolID: "p\x1b[31m1", Reaped: true, Moved: map[string]int64{"em\x07ail": 3}, LocksReleased: map[string]int64{"em\x07ail": 3}, LockAfter: map[string]int64{"em\x07ail": 0}},
		{PoolID: "p2", Skipped: "pool p2 is alive again, not reaped"},
	}})
	out := buf.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("control characters in %q", out)
	}
	for _, s := range []string{"pool p\\x1b[31m1: reaped", "em\\x07ail: 3 jobs requeued, lock -3, now 0", "pool p2: skipped: pool p2 is alive again", "Done: 3 jobs requeued, 1 of 2 pools reaped."} {
		if !strings.Contains(out, s) {
			t.Errorf("lacks %q:\n%s", s, out)
		}
	}
}

// A job type whose lock the reap did not lower says its lock as it is,
// not "lock -0".
func TestRenderResultLockUntouched(t *testing.T) {
	var buf bytes.Buffer
	RenderReapResult(&buf, Result{Pools: []PoolResult{
		{PoolID: "p1", Reaped: true, Moved: map[string]int64{"mail": 2, "sms": 1}, LocksReleased: map[string]int64{"sms": 1},
			LockAfter: map[string]int64{"mail": 0}},
	}})
	out := buf.String()
	if strings.Contains(out, "-0") {
		t.Errorf("a lock lowered by 0:\n%s", out)
	}
	for _, s := range []string{"mail: 2 jobs requeued, lock now 0\n", "sms: 1 job requeued, lock -1\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("lacks %q:\n%s", s, out)
		}
	}
}
