package reaper

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// drainJob is a queued "mail" job; bad ones carry args.bad = 1.
func drainJob(i int, bad bool) string {
	b := 0
	if bad {
		b = 1
	}
	return fmt.Sprintf(`{"name":"mail","id":"j%07d","t":1700000000,"args":{"bad":%d,"n":%d}}`, i, b, i)
}

// drainFill pushes n jobs onto the mail queue, every every-th matching,
// as gocraft/work enqueues (LPUSH), and returns them in run order.
func drainFill(t *testing.T, c redis.Conn, n, every int) []string {
	t.Helper()
	jobs := make([]string, n)
	for i := range jobs {
		jobs[i] = drainJob(i, i%every == every/2)
	}
	for s := 0; s < n; s += 1000 {
		args := []any{"work:jobs:mail"}
		for _, j := range jobs[s:min(s+1000, n)] {
			args = append(args, j)
		}
		jobsDo(t, c, "LPUSH", args...)
	}
	return jobs
}

// drainQueue is the mail queue in run order.
func drainQueue(t *testing.T, c redis.Conn) []string {
	t.Helper()
	l, err := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(l)-1; i < j; i, j = i+1, j-1 {
		l[i], l[j] = l[j], l[i]
	}
	return l
}

func drainQuery(t *testing.T, text string) *model.Query {
	t.Helper()
	q, err := model.ParseQuery(text, model.QueryClock{})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// drainRun plans and runs a drain with its journal in d, and returns the
// action read back.
func drainRun(t *testing.T, c redis.Conn, d journal.Dir, action DrainAction, batch int, before func()) (*journal.Action, DrainPlan, DrainResult) {
	t.Helper()
	plan, err := PlanDrain(context.Background(), c, redisq.NewKeys("work"), action, "mail", drainQuery(t, "args.bad:1"))
	if err != nil {
		t.Fatal(err)
	}
	op := journal.OpQueuePark
	if action == DrainDelete {
		op = journal.OpQueueDrain
	}
	w, err := d.Create(journal.Header{Address: "test", Namespace: "work", Op: op, Command: "jobs queue mail " + string(action)})
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before()
	}
	res, err := NewDrainExecutor("work", batch).WithJournal(w).Execute(context.Background(), c, plan, nil)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if err := w.End(journal.End{Done: res.Done}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := d.Read(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	return a, plan, res
}

func splitBad(jobs []string) (good, bad []string) {
	for _, j := range jobs {
		if strings.Contains(j, `"bad":1`) {
			bad = append(bad, j)
		} else {
			good = append(good, j)
		}
	}
	return good, bad
}

// A park takes exactly the matching jobs out of the queue into the dead
// set, marked as parked, and leaves the rest in their order; its undo puts
// the queue back as it was, byte for byte, and empties the dead set again.
func TestDrainParkAndUndo(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobs := drainFill(t, c, 5000, 7)
	good, bad := splitBad(jobs)
	d := undoJournal(t)
	a, plan, res := drainRun(t, c, d, DrainPark, 100, nil)
	if int(plan.Length) != len(jobs) || len(plan.Items) != len(bad) || res.Done != int64(len(bad)) || res.Gone != 0 {
		t.Fatalf("plan %d of %d, result %+v; want %d of %d", len(plan.Items), plan.Length, res, len(bad), len(jobs))
	}
	if got := drainQueue(t, c); !reflect.DeepEqual(got, good) {
		t.Fatalf("queue after the park: %d jobs, want the %d others in their order", len(got), len(good))
	}
	dead, err := redis.Strings(c.Do("ZRANGE", "work:dead", 0, -1))
	if err != nil || len(dead) != len(bad) {
		t.Fatalf("dead set: %d members, %v", len(dead), err)
	}
	now, _ := redis.Int64s(c.Do("TIME"))
	for _, raw := range dead {
		j, _ := model.ParseJobFields([]byte(raw))
		if j.LastErr != ParkedError || j.FailedAt < now[0]-60 || j.FailedAt > now[0] || !strings.Contains(string(j.Args), `"bad":1`) {
			t.Fatalf("parked job %s", raw)
		}
	}
	_, ures := undoAction(t, c, d, a)
	if ures.Restored != int64(len(bad)) {
		t.Fatalf("undo restored %d, want %d: %+v", ures.Restored, len(bad), ures)
	}
	if got := drainQueue(t, c); !reflect.DeepEqual(got, jobs) {
		firstDiff(t, got, jobs)
		t.Fatalf("queue after the undo differs from before (%d jobs, want %d)", len(got), len(jobs))
	}
	if n := undoInt(t, c, "ZCARD", "work:dead"); n != 0 {
		t.Fatalf("%d left in dead", n)
	}
	// A second undo finds them back.
	_, again := undoAction(t, c, d, a)
	if again.Already != int64(len(bad)) || again.Restored != 0 {
		t.Fatalf("second undo: %d restored, %d already, %d moved on", again.Restored, again.Already, again.MovedOn)
	}
}

// Workers taking jobs between the plan and the run, and after it, shift
// every position: the drain still takes exactly the matching jobs left,
// and the undo puts back behind their neighbours those whose place is
// still queued, the others at the head (they run next).
func TestDrainDeleteWhileWorkersTake(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobs := drainFill(t, c, 3000, 5)
	d := undoJournal(t)
	a, _, res := drainRun(t, c, d, DrainDelete, 64, func() {
		for i := 0; i < 1000; i++ {
			jobsDo(t, c, "RPOP", "work:jobs:mail")
		}
	})
	good, bad := splitBad(jobs[1000:])
	if res.Done != int64(len(bad)) || res.Gone != 200 {
		t.Fatalf("result %+v, want %d done and 200 gone", res, len(bad))
	}
	if got := drainQueue(t, c); !reflect.DeepEqual(got, good) {
		t.Fatalf("queue after the delete: %d jobs, want the %d others in their order", len(got), len(good))
	}
	// Workers take 500 more: the jobs that were among them go to the head.
	for i := 0; i < 500; i++ {
		jobsDo(t, c, "RPOP", "work:jobs:mail")
	}
	plan, ures := undoAction(t, c, d, a)
	if plan.NotChanged != 200 || ures.Restored != int64(len(bad)) {
		t.Fatalf("undo plan %d not changed, restored %d of %d", plan.NotChanged, ures.Restored, len(bad))
	}
	got := drainQueue(t, c)
	// The deleted jobs whose neighbours were taken come first, in their
	// order; then the queue as it was from where the workers are.
	var head []string
	rest := jobs[1000:]
	taken := 0
	for len(rest) > 0 && taken < 500 {
		if strings.Contains(rest[0], `"bad":1`) {
			head = append(head, rest[0])
		} else {
			taken++
		}
		rest = rest[1:]
	}
	// A deleted job right behind the 500th taken had it ahead: head too.
	for len(rest) > 0 && strings.Contains(rest[0], `"bad":1`) {
		head = append(head, rest[0])
		rest = rest[1:]
	}
	want := append(append([]string{}, head...), rest...)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("queue after the undo: %d jobs, want %d (head %d)", len(got), len(want), len(head))
	}
}

// Identical bytes twice: a drain never takes more copies than its plan
// saw, whatever was pushed since.
func TestDrainNeverTakesMoreThanPlanned(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	dup := drainJob(1, true)
	jobsDo(t, c, "LPUSH", "work:jobs:mail", drainJob(0, false), dup, drainJob(2, false))
	d := undoJournal(t)
	_, _, res := drainRun(t, c, d, DrainDelete, 10, func() {
		jobsDo(t, c, "LPUSH", "work:jobs:mail", dup)
	})
	if res.Done != 1 {
		t.Fatalf("result %+v", res)
	}
	want := []string{drainJob(0, false), drainJob(2, false), dup}
	if got := drainQueue(t, c); !reflect.DeepEqual(got, want) {
		t.Fatalf("queue %q, want %q", got, want)
	}
}

// A unique job deleted from its queue takes its unique key with it, as
// the delete by id does; the undo puts both back.
func TestDrainUniqueKey(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	u := `{"name":"mail","id":"u1","t":1700000000,"args":{"bad":1},"unique":true}`
	jobsDo(t, c, "LPUSH", "work:jobs:mail", drainJob(0, false), u)
	var j model.JobFields
	jf, _ := model.ParseJobFields([]byte(u))
	j = *jf
	key, ok, err := j.UniqueKeyIn("work:")
	if err != nil || !ok {
		t.Fatal(err)
	}
	jobsDo(t, c, "SET", key, "1")
	d := undoJournal(t)
	a, _, res := drainRun(t, c, d, DrainPark, 10, nil)
	if res.Done != 1 || res.UniqueDeleted != 1 || undoInt(t, c, "EXISTS", key) != 0 {
		t.Fatalf("result %+v, key there: %d", res, undoInt(t, c, "EXISTS", key))
	}
	_, ures := undoAction(t, c, d, a)
	if ures.UniqueRestored != 1 || undoString(t, c, "GET", key) != "1" {
		t.Fatalf("undo: %d unique keys restored", ures.UniqueRestored)
	}
}

// A parked job requeued from the dead set since is left alone by the undo.
func TestDrainUndoParkedRequeued(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	drainFill(t, c, 20, 4)
	d := undoJournal(t)
	a, _, res := drainRun(t, c, d, DrainPark, 10, nil)
	jobsDo(t, c, "DEL", "work:dead")
	_, ures := undoAction(t, c, d, a)
	if ures.MovedOn != res.Done || ures.Restored != 0 || undoInt(t, c, "LLEN", "work:jobs:mail") != 20-res.Done {
		t.Fatalf("undo: %d restored, %d moved on, after %d parked", ures.Restored, ures.MovedOn, res.Done)
	}
}

func TestParkedBytes(t *testing.T) {
	got, err := parkedBytes([]byte(`{"a":"<b>","t":1}`), 42)
	want := `{"a":"<b>","t":1,"err":"` + ParkedError + `","failed_at":42}`
	if err != nil || string(got) != want {
		t.Fatalf("%s %v", got, err)
	}
	got, err = parkedBytes([]byte(`{"z":1,"err":"x","failed_at":3,"a":"<"}`), 42)
	want = `{"a":"<","err":"` + ParkedError + `","failed_at":42,"z":1}`
	if err != nil || string(got) != want {
		t.Fatalf("%s %v", got, err)
	}
	if _, err := parkedBytes([]byte(`[1]`), 1); err == nil {
		t.Fatal("an array parked")
	}
}

func firstDiff(t *testing.T, got, want []string) {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Logf("first difference at %d: %s, want %s", i, got[i], want[i])
			for k := max(0, i-3); k < min(i+4, len(got)); k++ {
				t.Logf("  %d %.40s | %.40s", k, got[k], want[k])
			}
			return
		}
	}
}
