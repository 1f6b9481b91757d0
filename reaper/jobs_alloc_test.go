package reaper

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A bulk requeue by a time window (the requeue of an outage's hour) holds
// every member it plans until its execution ends, and a process touches a
// fresh page for every 4 KB it allocates: the plan and the journalled
// execution are held to a budget of bytes a job, so that a copy of the
// members, or garbage made per job, shows at once. The members here are
// about 170 bytes.
func TestJobsRequeueWindowAllocations(t *testing.T) {
	const n = 5000
	srv := redistest.Start(t)
	c, read := srv.Dial(), srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	for i := 0; i < n; i++ {
		if err := c.Send("ZADD", "work:dead", 1700000000+i, jobsDead(fmt.Sprintf("k%06d", i), "mail")); err != nil {
			t.Fatal(err)
		}
	}
	jobsDo(t, c, "ZADD", "work:dead", 1600000000, jobsDead("before", "mail"))
	q, err := model.ParseQuery("since:2023-11-14T22:13:20Z until:2023-11-15T00:00:00Z", model.QueryClock{Now: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	var plan JobsPlan
	planBytes := allocated(func() {
		plan, err = PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true, Query: q})
	})
	if err != nil || plan.Total != n {
		t.Fatalf("plan: %d jobs, %v", plan.Total, err)
	}
	w, err := (journal.Dir{Path: t.TempDir()}).Create(journal.Header{Namespace: "work", Op: journal.OpRequeue})
	if err != nil {
		t.Fatal(err)
	}
	x := NewJobsExecutor("work", DefaultBatch).WithJournal(NewJobsJournal(w, read))
	var res JobsResult
	execBytes := allocated(func() { res, err = x.Execute(context.Background(), c, plan, nil) })
	if err != nil || res.Done != n {
		t.Fatalf("requeue: %d of %d: %v", res.Done, n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("plan %d bytes a job, execution %d", planBytes/n, execBytes/n)
	// The plan allocates about 760 bytes a job, 810 under the race
	// detector (990 when each step of its walk decoded its jobs into
	// memory of its own); a copy of the members (about 170 bytes each,
	// and the slice they are copied into) takes it past 900: the plan
	// took 1,432 when it copied them. The execution: about 120, 170
	// under the race detector, 507 when each call's arguments were built
	// in buffers of their own, 1,358 when it built them three times.
	if planBytes/n > 900 || execBytes/n > 300 {
		t.Fatalf("plan allocates %d bytes a job, execution %d: budget 900 and 300", planBytes/n, execBytes/n)
	}
}

// A call's keys are each named once, and every member's index points at
// its own key, whether the call names a few keys (looked up in place) or
// many (in a map).
func TestJobsCallArgsKeyIndex(t *testing.T) {
	x := NewJobsExecutor("work", DefaultBatch)
	for _, distinct := range []int{3, 12} {
		plan := &JobsPlan{Action: JobsDelete, Target: JobsTarget{Set: model.SetRetry}}
		var items []JobItem
		for i := 0; i < 30; i++ {
			items = append(items, JobItem{
				Job:        model.SetJob{Set: model.SetRetry, Raw: []byte(fmt.Sprintf(`{"id":"j%d"}`, i)), ScoreText: "1"},
				UniqueKey:  fmt.Sprintf("work:unique:%d", i%distinct),
				UniqueMode: 'o',
			})
		}
		items[7].UniqueKey = "" // none: index 0
		cl := x.callArgs(plan, items, 0, nil)
		nkeys := cl.args[1].(int)
		if nkeys != 1+distinct || cl.args[2] != "work:retry" {
			t.Fatalf("%d keys: key count %v, first key %v", distinct, cl.args[1], cl.args[2])
		}
		keys := cl.args[2 : 2+nkeys]
		argv := cl.args[2+nkeys:]
		if len(argv) != 5*len(items) {
			t.Fatalf("%d keys: %d arguments, want %d", distinct, len(argv), 5*len(items))
		}
		for i, it := range items {
			at := argv[5*i+2].(int)
			switch {
			case it.UniqueKey == "" && at != 0:
				t.Fatalf("member %d without a unique key points at key %d", i, at)
			case it.UniqueKey != "" && keys[at-1] != it.UniqueKey:
				t.Fatalf("%d keys: member %d points at %v, want %s", distinct, i, keys[at-1], it.UniqueKey)
			}
		}
	}
}

// A bulk requeue's walk reads each step's jobs into the memory of the step
// before: the jobs the plan lists and the ends of its span, kept past
// their step, still hold their own fields when the walk has ended, and the
// execution moves every member planned.
func TestJobsRequeueWindowListsOwnFields(t *testing.T) {
	n := 3*BulkRangeCount + 7 // four steps, the last short
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	for i := 0; i < n; i++ {
		jobsDo(t, c, "ZADD", "work:dead", 1700000000+i, jobsDead(fmt.Sprintf("k%06d", i), "mail"))
	}
	q, err := model.ParseQuery("since:2023-11-14T22:13:20Z until:2023-11-15T22:00:00Z", model.QueryClock{Now: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true, Query: q})
	if err != nil || plan.Total != int64(n) {
		t.Fatalf("plan: %d jobs, %v", plan.Total, err)
	}
	own := func(what string, sj model.SetJob) {
		t.Helper()
		if sj.Job == nil {
			t.Fatalf("%s: no fields", what)
		}
		if want := model.ParseSetJob(sj.Set, sj.Raw, sj.ScoreText); !reflect.DeepEqual(*sj.Job, *want.Job) {
			t.Fatalf("%s: fields %+v, its bytes say %+v", what, *sj.Job, *want.Job)
		}
	}
	if len(plan.Items) != SampleSize {
		t.Fatalf("plan lists %d jobs, want %d", len(plan.Items), SampleSize)
	}
	for i, it := range plan.Items {
		own(fmt.Sprintf("listed job %d", i), it.Job)
	}
	own("first of the span", plan.Matched.First)
	own("last of the span", plan.Matched.Last)
	if got := plan.Matched.Last.Job.ID; got != fmt.Sprintf("k%06d", n-1) {
		t.Fatalf("last of the span is %s", got)
	}
	res, err := NewJobsExecutor("work", DefaultBatch).Execute(context.Background(), c, plan, nil)
	if err != nil || res.Done != int64(n) {
		t.Fatalf("requeue: %d of %d: %v", res.Done, n, err)
	}
}
