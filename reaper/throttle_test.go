package reaper

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// throttleSnapshot: mail (max_concurrency as given, lock 5) named by one
// live pool of 8 workers and one dead pool.
func throttleSnapshot(maxc int64) *model.Snapshot {
	return &model.Snapshot{
		Namespace: "work",
		Pools: []model.Pool{
			{ID: "live", Status: model.StatusAlive, Heartbeat: &model.Heartbeat{JobNames: []string{"mail"}, Concurrency: 8, Host: "h1"}},
			{ID: "dead", Status: model.StatusDead, Heartbeat: &model.Heartbeat{JobNames: []string{"mail"}}},
		},
		JobTypes: []model.JobType{{Name: "mail", MaxConcurrency: maxc, Lock: 5, InProgress: 5, Queued: 40}},
	}
}

func TestNewThrottlePlan(t *testing.T) {
	p, err := NewThrottlePlan(throttleSnapshot(0), "mail", 2, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != "work:jobs:mail:max_concurrency" || p.Before != 0 || p.New != 2 || p.Lock != 5 || len(p.Pools) != 1 || p.Pools[0].ID != "live" {
		t.Errorf("plan %+v", p)
	}
	if p.Finish() != 3 {
		t.Errorf("lock 5 capped at 2: %d finish first, want 3", p.Finish())
	}
	var b strings.Builder
	RenderThrottlePlan(&b, p)
	for _, want := range []string{"max_concurrency now 0 (no cap), after 2; lock now 5", "3 running jobs finish before a new one starts", "1 live pool name mail", "next starts"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, b.String())
		}
	}
	if p, err := NewThrottlePlan(throttleSnapshot(4), "mail", 9, true); err != nil || p.New != 0 || !p.Changes() {
		t.Errorf("reset: %+v %v", p, err)
	}
	for _, c := range []struct {
		job  string
		n    int64
		want error
	}{{"mial", 2, ErrUnknownJob}, {"", 2, ErrNoJob}, {"mail", 0, ErrBadLimit}, {"mail", -3, ErrBadLimit}} {
		_, err := NewThrottlePlan(throttleSnapshot(0), c.job, c.n, false)
		if !errors.Is(err, c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q %d: %v, want %v on one line", c.job, c.n, err, c.want)
		}
	}
	for _, s := range []string{"0", "-1", "1.5", "x", "", "99999999999999999999"} {
		if _, err := ParseLimit(s); !errors.Is(err, ErrBadLimit) {
			t.Errorf("ParseLimit(%q): %v", s, err)
		}
	}
}

// throttleJournalled runs plan with a journal in dir and reads it back.
func throttleJournalled(t *testing.T, c redis.Conn, dir journal.Dir, plan ThrottlePlan) (ThrottleResult, *journal.Action, error) {
	t.Helper()
	w, err := dir.Create(journal.Header{User: "ann", Address: "r1", Namespace: "work", Op: journal.OpThrottle, Command: "throttle", Targets: []string{plan.Name}})
	if err != nil {
		t.Fatal(err)
	}
	res, execErr := ExecuteThrottleJournal(context.Background(), c, plan, w)
	if err := w.End(journal.End{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := dir.Read(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	return res, a, execErr
}

// undoThrottle plans and runs the undo of a.
func undoThrottle(t *testing.T, c redis.Conn, dir journal.Dir, a *journal.Action) UndoResult {
	t.Helper()
	ctx := context.Background()
	plan, err := PlanUndo(ctx, c, redisq.NewKeys("work"), a)
	if err != nil {
		t.Fatal(err)
	}
	w, err := dir.Create(journal.Header{Namespace: "work", Op: journal.OpUndo, UndoOf: a.Header.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	res, err := NewUndoer(0).Execute(ctx, c, plan, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestThrottleScriptAndUndo(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	dir := journal.Dir{Path: t.TempDir()}
	key := "work:jobs:mail:max_concurrency"
	get := func() any { return srv.Do("GET", key) }

	t.Run("absent before: undo deletes", func(t *testing.T) {
		srv.Do("DEL", key)
		res, a, err := throttleJournalled(t, c, dir, ThrottlePlan{Name: "mail", Key: key, Before: 0, New: 3})
		if err != nil || res.Status != ThrottleDone || res.Before != "" || string(get().([]byte)) != "3" {
			t.Fatalf("throttle: %+v %v, key %q", res, err, get())
		}
		snap := throttleSnapshot(3)
		MarkThrottled(snap, []*journal.Action{a}, "r1")
		if th := snap.JobTypes[0].Throttled; th == nil || th.Value != 3 || th.By != "ann" || th.Action != a.Header.ID {
			t.Errorf("not marked: %+v", th)
		}
		MarkThrottled(snap, []*journal.Action{a}, "r2")
		if snap.JobTypes[0].Throttled != nil {
			t.Error("marked from the journal of another Redis")
		}
		if r := undoThrottle(t, c, dir, a); r.Restored != 1 || get() != nil {
			t.Errorf("undo: %+v, key %q, want it gone", r, get())
		}
		if r := undoThrottle(t, c, dir, a); r.Already != 1 {
			t.Errorf("undo again: %+v, want already back", r)
		}
	})

	t.Run("a pool start since: undo leaves it", func(t *testing.T) {
		srv.Do("SET", key, "0")
		_, a, err := throttleJournalled(t, c, dir, ThrottlePlan{Name: "mail", Key: key, Before: 0, New: 1})
		if err != nil {
			t.Fatal(err)
		}
		srv.Do("SET", key, "4") // a pool with MaxConcurrency 4 started
		snap := throttleSnapshot(4)
		MarkThrottled(snap, []*journal.Action{a}, "")
		if snap.JobTypes[0].Throttled != nil {
			t.Error("marked THROTTLED after a pool start wrote its own value")
		}
		if r := undoThrottle(t, c, dir, a); r.MovedOn != 1 || string(get().([]byte)) != "4" {
			t.Errorf("undo: %+v, key %q, want it left at 4", r, get())
		}
	})

	t.Run("throttles in a row: the pools' value is the first before", func(t *testing.T) {
		srv.Do("SET", key, "4")
		_, first, err := throttleJournalled(t, c, dir, ThrottlePlan{Name: "mail", Key: key, Before: 4, New: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, second, err := throttleJournalled(t, c, dir, ThrottlePlan{Name: "mail", Key: key, Before: 1, New: 3})
		if err != nil {
			t.Fatal(err)
		}
		snap := throttleSnapshot(3)
		MarkThrottled(snap, []*journal.Action{first, second}, "")
		if th := snap.JobTypes[0].Throttled; th == nil || th.Value != 3 || th.Before != "1" || th.Pools != "4" || th.Action != second.Header.ID {
			t.Errorf("mark %+v, want 3 over 1, the pools' 4", th)
		}
		if _, err := NewThrottlePlan(snap, "mail", 0, true); !errors.Is(err, ErrResetNotPools) {
			t.Errorf("reset over the pools' 4: %v", err)
		}
	})

	t.Run("changed since the plan: nothing written", func(t *testing.T) {
		srv.Do("SET", key, "7")
		res, err := ExecuteThrottle(ctx, c, ThrottlePlan{Name: "mail", Key: key, Before: 0, New: 1})
		if err == nil || res.Status != ThrottleMoved || string(get().([]byte)) != "7" || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v %v, key %q", res, err, get())
		}
		res, err = ExecuteThrottle(ctx, c, ThrottlePlan{Name: "mail", Key: key, Before: 7, New: 7})
		if err != nil || res.Status != ThrottleAlready {
			t.Errorf("same value: %+v %v", res, err)
		}
	})

	t.Run("wrong type: refused", func(t *testing.T) {
		srv.Do("DEL", key)
		srv.Do("RPUSH", key, "x")
		res, a, err := throttleJournalled(t, c, dir, ThrottlePlan{Name: "mail", Key: key, Before: 0, New: 1})
		if !errors.Is(err, ErrWrongType) || res.Status != ThrottleRefused || srv.Do("TYPE", key) != "list" {
			t.Errorf("%+v %v", res, err)
		}
		if plan, err := PlanUndo(ctx, c, redisq.NewKeys("work"), a); err != nil || len(plan.Items) != 0 {
			t.Errorf("undo of a refused throttle: %+v %v, want nothing to put back", plan, err)
		}
		srv.Do("DEL", key)
	})
}

// TestThrottleResetRefusedWhereThePoolsWroteACap: a reset of a type whose
// throttle in force replaced a cap the pools wrote is refused, naming the
// undo that puts it back; with the pools' 0 before, it is planned.
func TestThrottleResetRefusedWhereThePoolsWroteACap(t *testing.T) {
	snap := throttleSnapshot(1)
	snap.JobTypes[0].Throttled = &model.Throttled{Value: 1, Before: "2", Pools: "4", Action: "20261207-120000-001"}
	_, err := NewThrottlePlan(snap, "mail", 0, true)
	if !errors.Is(err, ErrResetNotPools) || !strings.Contains(err.Error(), "`throttle mail 4` puts that back") || strings.Contains(err.Error(), "\n") {
		t.Errorf("reset over the pools' 4: %v", err)
	}
	if _, err := NewThrottlePlan(snap, "mail", 2, false); err != nil {
		t.Errorf("a new limit over a throttle: %v", err)
	}
	snap.JobTypes[0].Throttled.Pools = "0"
	if p, err := NewThrottlePlan(snap, "mail", 0, true); err != nil || p.New != 0 {
		t.Errorf("reset over the pools' 0: %+v %v", p, err)
	}
}
