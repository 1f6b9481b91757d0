package reaper

import (
	"context"
	"errors"
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

// undoJournal is a journal directory of a test's own.
func undoJournal(t *testing.T) journal.Dir {
	t.Helper()
	return journal.Dir{Path: t.TempDir()}
}

// journalledJobs plans and runs a job action with its journal, as the
// command line does, and returns the action read back.
// planJournal plans a job action of namespace work (op names it: a
// requeue, or else a delete) and creates its journal.
func planJournal(t *testing.T, c redis.Conn, srv *redistest.Server, d journal.Dir, op string, target JobsTarget) (JobsPlan, *journal.Writer) {
	t.Helper()
	action := JobsRequeue
	if op != journal.OpRequeue {
		action = JobsDelete
	}
	plan, err := PlanJobs(context.Background(), c, redisq.NewKeys("work"), action, target)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	w, err := d.Create(journal.Header{Address: srv.Addr(), Namespace: "work", Op: op, Command: "jobs " + string(action)})
	if err != nil {
		t.Fatal(err)
	}
	return plan, w
}

func journalledJobs(t *testing.T, srv *redistest.Server, d journal.Dir, op string, target JobsTarget, batch int) (*journal.Action, JobsResult) {
	t.Helper()
	c, read := srv.Dial(), srv.Dial()
	defer c.Close()
	defer read.Close()
	plan, w := planJournal(t, c, srv, d, op, target)
	res, err := NewJobsExecutor("work", batch).WithJournal(NewJobsJournal(w, read)).Execute(context.Background(), c, plan, nil)
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
	return a, res
}

// undoAction plans and runs the undo of a, journalled in d.
func undoAction(t *testing.T, c redis.Conn, d journal.Dir, a *journal.Action) (UndoPlan, UndoResult) {
	t.Helper()
	plan, err := PlanUndo(context.Background(), c, redisq.NewKeys(a.Header.Namespace), a)
	if err != nil {
		t.Fatalf("plan undo: %v", err)
	}
	w, err := d.Create(journal.Header{Address: a.Header.Address, Namespace: a.Header.Namespace, Op: journal.OpUndo, UndoOf: a.Header.ID, Command: "undo"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}()
	res, err := NewUndoer(7).Execute(context.Background(), c, plan, w, nil)
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	return plan, res
}

func dumpEqual(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s is\n%.300s\nwant\n%.300s", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is there, and was not", what, k)
		}
	}
	t.FailNow()
}

// A bulk requeue of dead jobs, then its undo: the namespace is as before,
// byte for byte and score for score; a second undo finds everything back.
func TestUndoRequeueRestoresDump(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsNS(t, c, []string{"mail", "bill"}, "mail,bill")
	for i := 0; i < 300; i++ {
		name := []string{"mail", "bill"}[i%2]
		jobsDo(t, c, "ZADD", "work:dead", 1700000000+i%7, jobsDead(fmt.Sprintf("d%03d", i), name))
	}
	jobsDo(t, c, "LPUSH", "work:jobs:mail", `{"name":"mail","id":"waiting","t":1,"args":{}}`)
	before := redistest.Dump(t, c, "work:*")
	d := undoJournal(t)
	a, res := journalledJobs(t, srv, d, journal.OpRequeue, JobsTarget{Set: model.SetDead, All: true}, 13)
	if res.Done != 300 || undoInt(t, c, "ZCARD", "work:dead") != 0 {
		t.Fatalf("requeued %d", res.Done)
	}
	plan, ures := undoAction(t, c, d, a)
	if len(plan.Items) != 300 || plan.Maybe != 0 || ures.Restored != 300 || ures.MovedOn != 0 {
		t.Fatalf("undo plan %d items (%d maybe), result %+v", len(plan.Items), plan.Maybe, ures)
	}
	dumpEqual(t, "after undo", redistest.Dump(t, c, "work:*"), before)
	// The second plan reads where the items are: all back, nothing to do.
	replan, again := undoAction(t, c, d, a)
	if len(replan.Items) != 0 || replan.Already != 300 || replan.MovedOn != 0 || again.Restored != 0 || again.Calls != 0 {
		t.Fatalf("second undo: plan %d items, %d already back, %d moved on; result %+v", len(replan.Items), replan.Already, replan.MovedOn, again)
	}
	dumpEqual(t, "after a second undo", redistest.Dump(t, c, "work:*"), before)
}

// Jobs a worker took after the requeue are reported moved on and left
// alone; the others go back exactly.
func TestUndoRequeueMovedOn(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsNS(t, c, []string{"mail"}, "mail")
	for i := 0; i < 50; i++ {
		jobsDo(t, c, "ZADD", "work:retry", 1700000000+i, fmt.Sprintf(`{"name":"mail","id":"r%02d","t":1,"args":{"n":%d},"fails":1}`, i, i))
	}
	d := undoJournal(t)
	a, _ := journalledJobs(t, srv, d, journal.OpRequeue, JobsTarget{Set: model.SetRetry, All: true}, 10)
	// A worker takes the 5 oldest (from the tail).
	for i := 0; i < 5; i++ {
		jobsDo(t, c, "RPOPLPUSH", "work:jobs:mail", "work:jobs:mail:p1:inprogress")
	}
	// The plan reads the queue before it is shown: it puts back 45, and
	// says it leaves the 5 a worker took.
	plan, res := undoAction(t, c, d, a)
	if len(plan.Items) != 45 || plan.MovedOn != 5 || len(plan.MovedOnItems) != 5 || plan.Already != 0 {
		t.Fatalf("plan: %d to put back, %d moved on (%d listed), %d already back", len(plan.Items), plan.MovedOn, len(plan.MovedOnItems), plan.Already)
	}
	if res.Restored != 45 || res.MovedOn != 0 {
		t.Fatalf("undo: %d put back, %d moved on", res.Restored, res.MovedOn)
	}
	var text strings.Builder
	RenderUndoPlan(&text, plan)
	for _, want := range []string{"to put back: 45", "moved on since (a worker took them from the queue): 5, left alone"} {
		if !strings.Contains(text.String(), want) {
			t.Fatalf("plan does not say %q:\n%s", want, text.String())
		}
	}
	if n := undoInt(t, c, "LLEN", "work:jobs:mail"); n != 0 {
		t.Fatalf("queue holds %d", n)
	}
	if n := undoInt(t, c, "LLEN", "work:jobs:mail:p1:inprogress"); n != 5 {
		t.Fatalf("in progress %d, the taken jobs were touched", n)
	}
	if n := undoInt(t, c, "ZCARD", "work:retry"); n != 45 {
		t.Fatalf("retry holds %d", n)
	}
}

// droppingWriter drops the commit records of some calls, as a process
// killed with those calls in flight leaves its journal.
type droppingWriter struct {
	w    *journal.Writer
	drop func(seq int) bool
}

func (d droppingWriter) Intent(in journal.Intent) (int, error) { return d.w.Intent(in) }
func (d droppingWriter) Commit(seq int, c journal.Commit) error {
	if d.drop(seq) {
		return nil
	}
	return d.w.Commit(seq, c)
}

// Calls whose reply was never read (the journal holds their intent and no
// commit): the undo looks for the pushed bytes in the queue and puts them
// back like the others; the dump is as before.
func TestUndoRequeueWithoutCommits(t *testing.T) {
	srv := redistest.Start(t)
	c, read := srv.Dial(), srv.Dial()
	jobsNS(t, c, []string{"mail"}, "mail")
	for i := 0; i < 100; i++ {
		jobsDo(t, c, "ZADD", "work:dead", 1700000000+i, jobsDead(fmt.Sprintf("d%03d", i), "mail"))
	}
	before := redistest.Dump(t, c, "work:*")
	d := undoJournal(t)
	plan, w := planJournal(t, c, srv, d, journal.OpRequeue, JobsTarget{Set: model.SetDead, All: true})
	dw := droppingWriter{w: w, drop: func(seq int) bool { return seq%2 == 0 }}
	if _, err := NewJobsExecutor("work", 10).WithJournal(NewJobsJournal(dw, read)).Execute(context.Background(), c, plan, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := d.Read(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	uplan, res := undoAction(t, c, d, a)
	if uplan.Maybe != 50 || uplan.NotFound != 0 || res.Restored != 100 {
		t.Fatalf("undo plan: %d maybe, %d not found; %d put back, %d moved on", uplan.Maybe, uplan.NotFound, res.Restored, res.MovedOn)
	}
	dumpEqual(t, "after undo", redistest.Dump(t, c, "work:*"), before)
}

// Delete of 100 retry jobs, some unique, then undo: the jobs are back at
// their scores with their bytes, and the unique keys the delete took are
// back with no more time to live than they had left.
func TestUndoDeleteRestoresUniqueKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsNS(t, c, []string{"mail"}, "mail")
	ttls := map[string]int64{}
	for i := 0; i < 100; i++ {
		id := fmt.Sprintf("u%03d", i)
		if i%3 == 0 {
			key := "work:unique:mail:" + id
			job := fmt.Sprintf(`{"name":"mail","id":%q,"t":1,"args":{"n":%d},"unique":true,"unique_key":%q,"fails":1}`, id, i, key)
			jobsDo(t, c, "ZADD", "work:retry", 1700000000+i, job)
			// The key holds the job that holds it (as newer gocraft/work
			// writes it), so the delete takes it.
			jobsDo(t, c, "SET", key, job, "PX", 3600000+i*1000)
			ttls[key] = undoInt(t, c, "PTTL", key)
			continue
		}
		jobsDo(t, c, "ZADD", "work:retry", 1700000000+i, fmt.Sprintf(`{"name":"mail","id":%q,"t":1,"args":{"n":%d},"fails":1}`, id, i))
	}
	// A unique job whose key holds "1" (gocraft/work v0.5.1): the key
	// belongs to a newer copy, and is neither deleted nor written.
	jobsDo(t, c, "SET", "work:unique:mail:other", "1", "EX", 100)
	before := redistest.Dump(t, c, "work:*")
	d := undoJournal(t)
	a, res := journalledJobs(t, srv, d, journal.OpDelete, JobsTarget{Set: model.SetRetry, All: true}, 9)
	if res.Done != 100 || res.UniqueDeleted != 34 {
		t.Fatalf("deleted %d, %d unique keys", res.Done, res.UniqueDeleted)
	}
	_, ures := undoAction(t, c, d, a)
	if ures.Restored != 100 || ures.UniqueRestored != 34 {
		t.Fatalf("undo: %+v", ures)
	}
	dumpEqual(t, "after undo", redistest.Dump(t, c, "work:*"), before)
	for key, left := range ttls {
		ttl := undoInt(t, c, "PTTL", key)
		if ttl <= 0 || ttl > left {
			t.Fatalf("%s back with a time to live of %d ms, %d were left", key, ttl, left)
		}
	}
	// A unique key taken since by a newer copy is not touched by a second
	// delete's undo.
	a2, _ := journalledJobs(t, srv, d, journal.OpDelete, JobsTarget{Set: model.SetRetry, All: true}, 50)
	jobsDo(t, c, "SET", "work:unique:mail:u000", "newer")
	_, ures = undoAction(t, c, d, a2)
	if ures.UniqueHeld != 1 || ures.UniqueRestored != 33 {
		t.Fatalf("second undo: %+v", ures)
	}
	if v := undoString(t, c, "GET", "work:unique:mail:u000"); v != "newer" {
		t.Fatalf("newer copy's key is %q", v)
	}
}

// A pause undone is lifted; an unpause undone puts the key back with its
// value and what was left of its expiry; a key changed since is left alone.
func TestUndoPauseAndUnpause(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsDo(t, c, "SET", "work:jobs:bill:paused", "by ops", "EX", 600)
	d := undoJournal(t)
	run := func(pause bool, names ...string) *journal.Action {
		plan := PausePlan{Namespace: "work", Pause: pause}
		for _, n := range names {
			plan.Jobs = append(plan.Jobs, PauseJob{Name: n, Key: "work:jobs:" + n + ":paused"})
		}
		op := journal.OpUnpause
		if pause {
			op = journal.OpPause
		}
		w, err := d.Create(journal.Header{Address: srv.Addr(), Namespace: "work", Op: op})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ExecutePauseJournal(context.Background(), c, plan, w); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		a, err := d.Read(w.ID())
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	before := redistest.Dump(t, c, "work:*")
	a := run(true, "mail", "bill", "sms")
	jobsDo(t, c, "SET", "work:jobs:sms:paused", "someone else")
	plan, res := undoAction(t, c, d, a)
	if len(plan.Items) != 2 || plan.NotChanged != 1 || res.Restored != 1 || res.MovedOn != 1 {
		t.Fatalf("undo pause: plan %d items, %d not changed; %+v", len(plan.Items), plan.NotChanged, res)
	}
	jobsDo(t, c, "DEL", "work:jobs:sms:paused")
	dumpEqual(t, "after undo of pause", redistest.Dump(t, c, "work:*"), before)
	ttl := undoInt(t, c, "PTTL", "work:jobs:bill:paused")
	a = run(false, "bill")
	if n := undoInt(t, c, "EXISTS", "work:jobs:bill:paused"); n != 0 {
		t.Fatal("unpause left the key")
	}
	_, res = undoAction(t, c, d, a)
	if res.Restored != 1 {
		t.Fatalf("undo unpause: %+v", res)
	}
	dumpEqual(t, "after undo of unpause", redistest.Dump(t, c, "work:*"), before)
	if got := undoInt(t, c, "PTTL", "work:jobs:bill:paused"); got <= 0 || got > ttl {
		t.Fatalf("pause back with %d ms to live, %d were left", got, ttl)
	}
}

// A job deleted from its queue comes back with its unique key; a second
// undo finds it there and leaves it.
func TestUndoQueueDelete(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsNS(t, c, []string{"mail"}, "mail")
	job := `{"name":"mail","id":"q1","t":1,"args":{"a":1},"unique":true,"unique_key":"work:unique:mail:q1"}`
	jobsDo(t, c, "LPUSH", "work:jobs:mail", job)
	jobsDo(t, c, "SET", "work:unique:mail:q1", "1", "EX", 3600)
	before := redistest.Dump(t, c, "work:*")
	d := undoJournal(t)
	a, res := journalledJobs(t, srv, d, journal.OpQueueDelete, JobsTarget{Queue: "mail", Refs: []JobRef{{ID: "q1"}}}, 10)
	if res.Done != 1 || res.UniqueDeleted != 1 {
		t.Fatalf("delete: %+v", res)
	}
	_, ures := undoAction(t, c, d, a)
	if ures.Restored != 1 || ures.UniqueRestored != 1 {
		t.Fatalf("undo: %+v", ures)
	}
	dumpEqual(t, "after undo", redistest.Dump(t, c, "work:*"), before)
	if _, ures = undoAction(t, c, d, a); ures.Already != 1 {
		t.Fatalf("second undo: %+v", ures)
	}
}

// Reaps, orphan requeues, lock repairs and undos are refused with their
// reason; an action of another namespace too.
func TestUndoRefused(t *testing.T) {
	for _, op := range []string{journal.OpReap, journal.OpOrphans, journal.OpRepairLocks, journal.OpUndo} {
		a := &journal.Action{Header: journal.Header{ID: "x", Op: op, Namespace: "work"}}
		if _, err := PlanUndo(context.Background(), nil, redisq.NewKeys("work"), a); err == nil || !errors.Is(err, ErrUndoRefused) {
			t.Fatalf("%s: %v", op, err)
		}
	}
	a := &journal.Action{Header: journal.Header{ID: "x", Op: journal.OpRequeue, Namespace: "other"}}
	if _, err := PlanUndo(context.Background(), nil, redisq.NewKeys("work"), a); !errors.Is(err, ErrUndoRefused) {
		t.Fatalf("other namespace: %v", err)
	}
}

func undoInt(t *testing.T, c redis.Conn, cmd string, args ...any) int64 {
	t.Helper()
	n, err := redis.Int64(c.Do(cmd, args...))
	if err != nil {
		t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return n
}

func undoString(t *testing.T, c redis.Conn, cmd string, args ...any) string {
	t.Helper()
	s, err := redis.String(c.Do(cmd, args...))
	if err != nil {
		t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return s
}

// A bulk delete whose replies were never read for every other call: its
// jobs come back, and the unique keys those calls would have deleted with
// them (the key named the job) come back too.
func TestUndoDeleteWithoutCommits(t *testing.T) {
	srv := redistest.Start(t)
	c, read := srv.Dial(), srv.Dial()
	jobsNS(t, c, []string{"mail"}, "mail")
	for i := 0; i < 60; i++ {
		id := fmt.Sprintf("u%03d", i)
		key := "work:unique:mail:" + id
		job := fmt.Sprintf(`{"name":"mail","id":%q,"t":1,"args":{"n":%d},"unique":true,"unique_key":%q,"fails":1}`, id, i, key)
		jobsDo(t, c, "ZADD", "work:retry", 1700000000+i, job)
		if i%2 == 0 {
			jobsDo(t, c, "SET", key, job, "EX", 3600)
		} else {
			jobsDo(t, c, "SET", key, "1", "EX", 3600) // a newer copy's: never deleted
		}
	}
	before := redistest.Dump(t, c, "work:*")
	d := undoJournal(t)
	plan, w := planJournal(t, c, srv, d, journal.OpDelete, JobsTarget{Set: model.SetRetry, All: true})
	dw := droppingWriter{w: w, drop: func(seq int) bool { return seq%2 == 1 }}
	res, err := NewJobsExecutor("work", 8).WithJournal(NewJobsJournal(dw, read)).Execute(context.Background(), c, plan, nil)
	if err != nil || res.Done != 60 || res.UniqueDeleted != 30 {
		t.Fatalf("delete: %d, %d unique keys: %v", res.Done, res.UniqueDeleted, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := d.Read(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	uplan, ures := undoAction(t, c, d, a)
	if uplan.Maybe == 0 || ures.Restored != 60 || ures.UniqueRestored != 30 || ures.UniqueHeld != 0 {
		t.Fatalf("undo: %d maybe; %d put back, %d unique keys, %d held", uplan.Maybe, ures.Restored, ures.UniqueRestored, ures.UniqueHeld)
	}
	dumpEqual(t, "after undo", redistest.Dump(t, c, "work:*"), before)
}

// Progress counts items put back, not items visited: jobs a worker takes
// between the plan and the run are not progress.
func TestUndoProgressCountsPutBack(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsNS(t, c, []string{"mail"}, "mail")
	for i := 0; i < 20; i++ {
		jobsDo(t, c, "ZADD", "work:retry", 1700000000+i, fmt.Sprintf(`{"name":"mail","id":"r%02d","t":1,"args":{},"fails":1}`, i))
	}
	d := undoJournal(t)
	a, _ := journalledJobs(t, srv, d, journal.OpRequeue, JobsTarget{Set: model.SetRetry, All: true}, 10)
	plan, err := PlanUndo(context.Background(), c, redisq.NewKeys("work"), a)
	if err != nil || len(plan.Items) != 20 {
		t.Fatalf("plan %d items: %v", len(plan.Items), err)
	}
	for i := 0; i < 12; i++ { // a worker takes 12 after the plan was read
		jobsDo(t, c, "RPOPLPUSH", "work:jobs:mail", "work:jobs:mail:p1:inprogress")
	}
	w, err := d.Create(journal.Header{Address: a.Header.Address, Namespace: "work", Op: journal.OpUndo, UndoOf: a.Header.ID, Command: "undo"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}()
	var last int64 = -1
	res, err := NewUndoer(7).Execute(context.Background(), c, plan, w, func(done, total int64) {
		if done < last || total != 20 {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Restored != 8 || res.MovedOn != 12 || last != 8 {
		t.Fatalf("put back %d, moved on %d; progress ended at %d, want 8", res.Restored, res.MovedOn, last)
	}
}
