package reaper

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// editJournalled runs plan with a journal in dir and returns the result
// and the action as read back.
func editJournalled(t *testing.T, c redis.Conn, dir journal.Dir, op string, plan EditPlan) (EditResult, *journal.Action, error) {
	t.Helper()
	w, err := dir.Create(journal.Header{Namespace: "work", Op: op, Command: "jobs " + op})
	if err != nil {
		t.Fatal(err)
	}
	res, execErr := ExecuteEdit(context.Background(), c, plan, w)
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

func members(t *testing.T, c redis.Conn, key string) []string {
	t.Helper()
	v, err := redis.Strings(c.Do("ZRANGE", key, 0, -1, "WITHSCORES"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEditReplacesOnlyArgs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	keys := redisq.NewKeys("work")
	dir := journal.Dir{Path: t.TempDir()}
	// Written as cjson would: key order of its own, "\/" escapes, a number
	// of 20 digits, and fields gocraft/work's Go encoder never writes.
	old := `{"err":"smtp: 550 a\/b","args":{"to":"a@b","big":12345678901234567890,"l":[]},"id":"j1","t":1700000000,"fails":4,"name":"mail","failed_at":1700000100,"x":{"k":1}}`
	other := `{"name":"mail","id":"j2","t":1700000000,"args":{"to":"c@d"}}`
	srv.Do("ZADD", "work:dead", "1700000100.5", old, 1700000200, other)
	args, err := model.CompactArgs([]byte("{\n  \"to\": \"new@b\",\n  \"big\": 12345678901234567890,\n  \"l\": []\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanEdit(ctx, c, keys, model.SetDead, JobRef{ID: "j1"}, args, false)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	RenderEditPlan(&text, plan)
	for _, want := range []string{`-   "to": "a@b",`, `+   "to": "new@b",`, `    "big": 12345678901234567890,`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, text.String())
		}
	}
	res, a, err := editJournalled(t, c, dir, journal.OpEdit, plan)
	if err != nil || res.Code != "e" {
		t.Fatalf("edit: %+v %v", res, err)
	}
	want := strings.Replace(old, `"to":"a@b"`, `"to":"new@b"`, 1)
	got := members(t, c, "work:dead")
	if len(got) != 4 || got[0] != want || got[1] != "1700000100.5" || got[2] != other {
		t.Fatalf("dead set after the edit:\n%q\nwant the edited bytes %s at the same score", got, want)
	}

	// Undo puts the old bytes back at the same score; again, nothing.
	if r := undoThrottle(t, c, dir, a); r.Restored != 1 {
		t.Fatalf("undo: %+v", r)
	}
	if got := members(t, c, "work:dead"); got[0] != old || got[1] != "1700000100.5" || len(got) != 4 {
		t.Fatalf("after undo: %q", got)
	}
	if r := undoThrottle(t, c, dir, a); r.Already != 1 || r.Restored != 0 {
		t.Errorf("undo again: %+v, want already back", r)
	}

	// The same args: nothing to do.
	same, _ := model.CompactArgs([]byte(`{"to":"a@b","big":12345678901234567890,"l":[]}`))
	if _, err := PlanEdit(ctx, c, keys, model.SetDead, JobRef{ID: "j1"}, same, false); !errors.Is(err, ErrNothingChanged) {
		t.Errorf("unchanged args: %v", err)
	}
}

func TestEditRefusesAMemberChangedMeanwhile(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	keys := redisq.NewKeys("work")
	dir := journal.Dir{Path: t.TempDir()}
	old := `{"name":"mail","id":"j1","t":1700000000,"args":{"to":"a@b"},"fails":1,"err":"x","failed_at":1700000001}`
	srv.Do("ZADD", "work:retry", 1700000500, old)
	args := []byte(`{"to":"b@c"}`)
	for _, c2 := range []struct {
		name   string
		change func()
		code   string
	}{
		{"bytes changed", func() {
			srv.Do("ZREM", "work:retry", old)
			srv.Do("ZADD", "work:retry", 1700000500, strings.Replace(old, `"fails":1`, `"fails":2`, 1))
		}, "g"},
		{"rescored", func() { srv.Do("ZADD", "work:retry", 1700000999, old) }, "s"},
	} {
		t.Run(c2.name, func(t *testing.T) {
			srv.Do("DEL", "work:retry")
			srv.Do("ZADD", "work:retry", 1700000500, old)
			plan, err := PlanEdit(ctx, c, keys, model.SetRetry, JobRef{ID: "j1"}, args, false)
			if err != nil {
				t.Fatal(err)
			}
			c2.change()
			before := redistest.Dump(t, c, "work:*")
			res, a, err := editJournalled(t, c, dir, journal.OpEdit, plan)
			if !errors.Is(err, ErrEditMoved) || res.Code != c2.code || strings.Contains(err.Error(), "\n") {
				t.Fatalf("edit of a changed member: %+v %v, want code %s and ErrEditMoved on one line", res, err, c2.code)
			}
			if after := redistest.Dump(t, c, "work:*"); !sameDump(before, after) {
				t.Errorf("Redis changed by a refused edit:\n%v\n%v", before, after)
			}
			p, err := PlanUndo(ctx, c, keys, a)
			if err != nil || len(p.Items) != 0 || p.NotChanged != 1 {
				t.Errorf("undo of a refused edit: %+v %v, want nothing to put back", p, err)
			}
		})
	}
}

func sameDump(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestEditRequeueAndUniqueKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	keys := redisq.NewKeys("work")
	dir := journal.Dir{Path: t.TempDir()}
	old := `{"name":"mail","id":"u1","t":1700000000,"args":{"to":"a@b"},"unique":true,"fails":4,"err":"x","failed_at":1700000001}`
	oldKey, newKey := "work:unique:mail:{\"to\":\"a@b\"}\n", "work:unique:mail:{\"to\":\"z@b\"}\n"
	args := []byte(`{"to":"z@b"}`)

	t.Run("dead, requeued: the new key is set as EnqueueUnique does; undo takes both back", func(t *testing.T) {
		srv.Do("FLUSHALL")
		srv.Do("ZADD", "work:dead", 1700000001, old)
		plan, err := PlanEdit(ctx, c, keys, model.SetDead, JobRef{ID: "u1"}, args, true)
		if err != nil {
			t.Fatal(err)
		}
		if plan.UniqueOp != uniqueSet || plan.NewUnique != newKey {
			t.Fatalf("unique plan %q %q", plan.UniqueOp, plan.NewUnique)
		}
		res, a, err := editJournalled(t, c, dir, journal.OpEdit, plan)
		if err != nil || res.Code != "q" || res.Unique != "set" {
			t.Fatalf("edit --requeue: %+v %v", res, err)
		}
		q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
		want := regexp.MustCompile(`^\{"name":"mail","id":"u1","t":[0-9]+,"args":\{"to":"z@b"\},"unique":true\}$`)
		if len(q) != 1 || !want.MatchString(q[0]) || srv.Do("ZCARD", "work:dead").(int64) != 0 {
			t.Fatalf("queue %q, want the edited job without its failure fields", q)
		}
		if ttl := srv.Do("TTL", newKey).(int64); ttl < 86000 {
			t.Errorf("new unique key ttl %d, want 24 h", ttl)
		}
		if r := undoThrottle(t, c, dir, a); r.Restored != 1 {
			t.Fatalf("undo: %+v", r)
		}
		if got := members(t, c, "work:dead"); len(got) != 2 || got[0] != old || srv.Do("LLEN", "work:jobs:mail").(int64) != 0 || srv.Do("EXISTS", newKey).(int64) != 0 {
			t.Errorf("after undo: dead %q, queue %v, key %v", got, srv.Do("LLEN", "work:jobs:mail"), srv.Do("EXISTS", newKey))
		}
	})

	t.Run("dead, requeued, the new key held: refused", func(t *testing.T) {
		srv.Do("FLUSHALL")
		srv.Do("ZADD", "work:dead", 1700000001, old)
		srv.Do("SET", newKey, "1")
		if _, err := PlanEdit(ctx, c, keys, model.SetDead, JobRef{ID: "u1"}, args, true); !errors.Is(err, ErrUniqueHeld) {
			t.Errorf("plan: %v, want ErrUniqueHeld", err)
		}
	})

	t.Run("scheduled: the key moves with its ttl, and back on undo", func(t *testing.T) {
		srv.Do("FLUSHALL")
		sched := `{"name":"mail","id":"u1","t":1700000000,"args":{"to":"a@b"},"unique":true}`
		srv.Do("ZADD", "work:scheduled", 1900000000, sched)
		srv.Do("SET", oldKey, "1", "EX", 5000)
		plan, err := PlanEdit(ctx, c, keys, model.SetScheduled, JobRef{ID: "u1"}, args, false)
		if err != nil {
			t.Fatal(err)
		}
		res, a, err := editJournalled(t, c, dir, journal.OpEdit, plan)
		if err != nil || res.Code != "e" || res.Unique != "moved" {
			t.Fatalf("edit: %+v %v", res, err)
		}
		if srv.Do("EXISTS", oldKey).(int64) != 0 || srv.Do("TTL", newKey).(int64) < 4990 {
			t.Fatalf("key not moved: old %v new ttl %v", srv.Do("EXISTS", oldKey), srv.Do("TTL", newKey))
		}
		if r := undoThrottle(t, c, dir, a); r.Restored != 1 {
			t.Fatalf("undo: %+v", r)
		}
		if got := members(t, c, "work:scheduled"); got[0] != sched || srv.Do("EXISTS", newKey).(int64) != 0 || srv.Do("TTL", oldKey).(int64) < 4900 {
			t.Errorf("after undo: %q, new key %v, old ttl %v", got, srv.Do("EXISTS", newKey), srv.Do("TTL", oldKey))
		}
	})
}

func TestDuplicate(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	keys := redisq.NewKeys("work")
	dir := journal.Dir{Path: t.TempDir()}
	old := `{"name":"mail","id":"d1","t":1700000000,"args":{"to":"a@b"},"fails":4,"err":"x","failed_at":1700000001}`
	srv.Do("ZADD", "work:dead", 1700000001, old)
	srv.Do("LPUSH", "work:jobs:mail", `{"name":"mail","id":"q0","t":1,"args":{}}`)
	plan, err := PlanDuplicate(ctx, c, keys, model.SetDead, JobRef{ID: "d1"})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(plan.NewID) {
		t.Errorf("new id %q, want gocraft/work's 24 hex digits", plan.NewID)
	}
	res, a, err := editJournalled(t, c, dir, journal.OpDuplicate, plan)
	if err != nil || res.Code != "c" {
		t.Fatalf("duplicate: %+v %v", res, err)
	}
	q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
	want := regexp.MustCompile(`^\{"name":"mail","id":"` + plan.NewID + `","t":[0-9]+,"args":\{"to":"a@b"\}\}$`)
	if len(q) != 2 || !want.MatchString(q[0]) || !bytes.Equal(res.Written, []byte(q[0])) {
		t.Fatalf("queue %q, want exactly one new job at the head", q)
	}
	if got := members(t, c, "work:dead"); len(got) != 2 || got[0] != old {
		t.Errorf("the original moved: %q", got)
	}
	if r := undoThrottle(t, c, dir, a); r.Restored != 1 {
		t.Fatalf("undo: %+v", r)
	}
	if q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1)); len(q) != 1 || members(t, c, "work:dead")[0] != old {
		t.Errorf("after undo: queue %q", q)
	}
	if r := undoThrottle(t, c, dir, a); r.MovedOn != 1 {
		t.Errorf("undo again: %+v, want moved on (the copy is gone)", r)
	}

	t.Run("a unique job's copy sets its key as EnqueueUnique does", func(t *testing.T) {
		srv.Do("ZADD", "work:dead", 1700000003, `{"name":"mail","id":"d3","t":1,"args":{"to":"u@v"},"unique":true}`)
		plan, err := PlanDuplicate(ctx, c, keys, model.SetDead, JobRef{ID: "d3"})
		if err != nil || plan.UniqueOp != uniqueSet {
			t.Fatalf("plan: unique op %q, %v", plan.UniqueOp, err)
		}
		res, _, err := editJournalled(t, c, dir, journal.OpDuplicate, plan)
		if err != nil || res.Unique != "set" || srv.Do("TTL", "work:unique:mail:{\"to\":\"u@v\"}\n").(int64) < 86000 {
			t.Errorf("duplicate: %+v %v, key ttl %v", res, err, srv.Do("TTL", "work:unique:mail:{\"to\":\"u@v\"}\n"))
		}
	})

	t.Run("a unique job whose key is held is refused", func(t *testing.T) {
		srv.Do("ZADD", "work:dead", 1700000002, `{"name":"mail","id":"d2","t":1,"args":{"to":"a@b"},"unique":true}`)
		srv.Do("SET", "work:unique:mail:{\"to\":\"a@b\"}\n", "1")
		_, err := PlanDuplicate(ctx, c, keys, model.SetDead, JobRef{ID: "d2"})
		if !errors.Is(err, ErrUniqueHeld) || strings.Contains(err.Error(), "\n") {
			t.Errorf("duplicate of a held unique job: %v", err)
		}
	})
}

func TestDiffLines(t *testing.T) {
	got := strings.Join(DiffLines("{\n  a\n  b\n}\n", "{\n  a\n  c\n}\n"), "|")
	if want := "  {|    a|-   b|+   c|  }"; got != want {
		t.Errorf("diff %q, want %q", got, want)
	}
}

// lostCommit journals intents but never a commit: the journal of a run
// killed with its call in flight.
type lostCommit struct{ w *journal.Writer }

func (l lostCommit) Intent(in journal.Intent) (int, error) { return l.w.Intent(in) }
func (lostCommit) Commit(int, journal.Commit) error        { return errors.New("killed") }

// TestEditKilledInFlightIsUndone: an edit --requeue and a duplicate whose
// replies were never read are undone from their intents: the pushed bytes
// are found in the queue by their shape, and everything goes back.
func TestEditKilledInFlightIsUndone(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	keys := redisq.NewKeys("work")
	dir := journal.Dir{Path: t.TempDir()}
	old := `{"name":"mail","id":"k1","t":1700000000,"args":{"to":"a@b"},"fails":4,"err":"x","failed_at":1700000001}`
	for _, tc := range []struct {
		op   string
		plan func() (EditPlan, error)
	}{
		{journal.OpEdit, func() (EditPlan, error) {
			return PlanEdit(ctx, c, keys, model.SetDead, JobRef{ID: "k1"}, []byte(`{"to":"z@b"}`), true)
		}},
		{journal.OpDuplicate, func() (EditPlan, error) { return PlanDuplicate(ctx, c, keys, model.SetDead, JobRef{ID: "k1"}) }},
	} {
		t.Run(tc.op, func(t *testing.T) {
			srv.Do("FLUSHALL")
			srv.Do("ZADD", "work:dead", 1700000001, old)
			srv.Do("LPUSH", "work:jobs:mail", `{"name":"mail","id":"other","t":1,"args":{}}`)
			plan, err := tc.plan()
			if err != nil {
				t.Fatal(err)
			}
			w, err := dir.Create(journal.Header{Namespace: "work", Op: tc.op})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ExecuteEdit(ctx, c, plan, lostCommit{w}); err == nil {
				t.Fatal("a lost commit reported no error")
			}
			_ = w.Close()
			a, err := dir.Read(w.ID())
			if err != nil {
				t.Fatal(err)
			}
			p, err := PlanUndo(ctx, c, keys, a)
			if err != nil || len(p.Items) != 1 || p.Maybe != 1 || p.Items[0].Item.New == nil {
				t.Fatalf("undo plan: %+v %v, want one item of a call never read, its pushed bytes found", p, err)
			}
			if r := undoThrottle(t, c, dir, a); r.Restored != 1 {
				t.Fatalf("undo: %+v", r)
			}
			q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
			if got := members(t, c, "work:dead"); len(got) != 2 || got[0] != old || len(q) != 1 {
				t.Errorf("after undo: dead %q, queue %q", got, q)
			}
		})
	}
}
