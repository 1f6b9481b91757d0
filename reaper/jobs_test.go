package reaper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

func jobsDo(t *testing.T, c redis.Conn, cmd string, args ...any) any {
	t.Helper()
	v, err := c.Do(cmd, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return v
}

// jobsNS sets up namespace "work" with known and served job names.
func jobsNS(t *testing.T, c redis.Conn, known []string, served string) redisq.Keys {
	t.Helper()
	for _, n := range known {
		jobsDo(t, c, "SADD", "work:known_jobs", n)
	}
	now, err := redis.Int64s(c.Do("TIME"))
	if err != nil {
		t.Fatal(err)
	}
	jobsDo(t, c, "SADD", "work:worker_pools", "p1", "p2")
	jobsDo(t, c, "HSET", "work:worker_pools:p1", "job_names", served, "heartbeat_at", now[0])
	// A dead pool's job names do not count.
	jobsDo(t, c, "HSET", "work:worker_pools:p2", "job_names", "idle", "heartbeat_at", now[0]-60)
	return redisq.NewKeys("work")
}

const jobsArgs = `{"big":12345678901234567,"list":[],"url":"http://x/y","html":"\u003cb\u003e"}`

func jobsDead(id, name string) string {
	return fmt.Sprintf(`{"name":%q,"id":%q,"t":1700000000,"args":%s,"fails":4,"err":"boom 17","failed_at":1700000300}`, name, id, jobsArgs)
}

func jobsPlanExec(t *testing.T, c redis.Conn, keys redisq.Keys, action JobsAction, target JobsTarget, batch int) (JobsPlan, JobsResult) {
	t.Helper()
	plan, err := PlanJobs(context.Background(), c, keys, action, target)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	res, err := NewJobsExecutor("work", batch).Execute(context.Background(), c, plan, nil)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	return plan, res
}

func TestJobsRequeueDeadKeepsArgsExactly(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	jobsDo(t, c, "ZADD", "work:dead", 1700000300, jobsDead("a1", "mail"))
	jobsDo(t, c, "ZADD", "work:dead", 1700000301, jobsDead("a2", "mail"))
	jobsDo(t, c, "RPUSH", "work:jobs:mail", "older")
	plan, res := jobsPlanExec(t, c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "a1"}}}, 0)
	if plan.Total != 1 || res.Done != 1 || res.GoneCount != 0 {
		t.Fatalf("plan %d, done %d, gone %d", plan.Total, res.Done, res.GoneCount)
	}
	now, _ := redis.Int64s(c.Do("TIME"))
	q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
	if len(q) != 2 || q[1] != "older" {
		t.Fatalf("queue %q: the job must go to the head (LPUSH), the back of the line", q)
	}
	var tm int64
	if _, err := fmt.Sscanf(q[0], `{"name":"mail","id":"a1","t":%d,`, &tm); err != nil || tm < now[0]-5 || tm > now[0] {
		t.Fatalf("t of %s is not Redis's now %d", q[0], now[0])
	}
	want := fmt.Sprintf(`{"name":"mail","id":"a1","t":%d,"args":%s}`, tm, jobsArgs)
	if q[0] != want {
		t.Fatalf("requeued\n got %s\nwant %s", q[0], want)
	}
	if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 1 {
		t.Fatalf("dead has %d members, want 1", n)
	}
}

func TestJobsRequeueRetryKeepsFailure(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	jobsDo(t, c, "ZADD", "work:retry", "1700000300.25", jobsDead("r1", "mail"))
	_, res := jobsPlanExec(t, c, keys, JobsRequeue, JobsTarget{Set: model.SetRetry, Refs: []JobRef{{ID: "r1", Score: "1700000300.25"}}}, 0)
	q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
	if res.Done != 1 || len(q) != 1 || !strings.HasSuffix(q[0], `"args":`+jobsArgs+`,"fails":4,"err":"boom 17","failed_at":1700000300}`) {
		t.Fatalf("done %d, queue %q", res.Done, q)
	}
	// A job without t gets one, after everything it had.
	jobsDo(t, c, "ZADD", "work:retry", 7, `{"id":"r2","name":"mail","args":{"a":[]} }`)
	_, res = jobsPlanExec(t, c, keys, JobsRequeue, JobsTarget{Set: model.SetRetry, Refs: []JobRef{{ID: "r2"}}}, 0)
	got, _ := redis.String(c.Do("LINDEX", "work:jobs:mail", 0))
	now, _ := redis.Int64s(c.Do("TIME"))
	var tm int64
	if _, err := fmt.Sscanf(got, `{"id":"r2","name":"mail","args":{"a":[]},"t":%d }`, &tm); err != nil || res.Done != 1 || tm < now[0]-5 || tm > now[0] {
		t.Fatalf("requeued %s (%v)", got, err)
	}
}

func TestJobsRequeueRefusals(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail", "idle"}, "mail")
	jobsDo(t, c, "ZADD", "work:dead", 1, jobsDead("u1", "unknown"))
	jobsDo(t, c, "ZADD", "work:dead", 2, jobsDead("i1", "idle"))
	jobsDo(t, c, "ZADD", "work:dead", 3, "not json")
	before := redistest.Dump(t, c, "*")
	for _, tt := range []struct {
		target JobsTarget
		want   error
	}{
		{JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "u1"}}}, ErrUnknownJobName},
		{JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "i1"}}}, ErrUnserved},
		{JobsTarget{Set: model.SetDead, Refs: []JobRef{{Raw: []byte("not json"), Score: "3"}}}, ErrNotRequeueable},
		{JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "nope"}}}, ErrJobNotFound},
		{JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "i1", Score: "3"}}}, ErrJobNotFound},
		{JobsTarget{Set: model.SetDead}, ErrBadTarget},
		{JobsTarget{Set: "other", All: true}, ErrBadTarget},
		{JobsTarget{Set: model.SetDead, All: true, Job: "unknown"}, ErrUnknownJobName},
		{JobsTarget{Set: model.SetDead, All: true, Job: "idle"}, ErrUnserved},
	} {
		if _, err := PlanJobs(context.Background(), c, keys, JobsRequeue, tt.target); !errors.Is(err, tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: err %v, want %v", tt.target, err, tt.want)
		}
	}
	if after := redistest.Dump(t, c, "*"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("a refused plan changed Redis")
	}
	plan, res := jobsPlanExec(t, c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "i1"}}, Force: true}, 0)
	if res.Done != 1 || len(plan.Warnings) == 0 || !strings.Contains(plan.Warnings[0], "idle") {
		t.Fatalf("forced: done %d, warnings %q", res.Done, plan.Warnings)
	}
	// A bulk requeue leaves the others alone and says why.
	plan, res = jobsPlanExec(t, c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true}, 0)
	if plan.Total != 0 || len(plan.Skipped) != 2 || res.Done != 0 || len(res.Skipped) != 2 {
		t.Fatalf("bulk: plan %+v, result %+v", plan, res)
	}
	if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 2 {
		t.Fatalf("dead has %d members, want 2", n)
	}
}

// A bulk plan takes the exact bytes it found, at whatever score they are
// when its call runs (its walk reads no scores; the jobs it lists show
// theirs), and reports those that left the set meanwhile.
func TestJobsBulkTakesItsBytesAtAnyScore(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail", "other"}, "mail")
	for i := 0; i < 10; i++ {
		jobsDo(t, c, "ZADD", "work:dead", 100+i, jobsDead(fmt.Sprintf("b%d", i), "mail"))
		jobsDo(t, c, "ZADD", "work:dead", 100+i, jobsDead(fmt.Sprintf("o%d", i), "other"))
	}
	for _, action := range []JobsAction{JobsRequeue, JobsDelete} {
		plan, err := PlanJobs(context.Background(), c, keys, action, JobsTarget{Set: model.SetDead, All: true, Job: "mail"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Total != 10 || len(plan.Items) != 10 || plan.Items[0].Job.ScoreText != "100" || plan.Items[9].Job.ScoreText != "109" {
			t.Fatalf("%s plan: %d jobs, listed %d, first at %q", action, plan.Total, len(plan.Items), plan.Items[0].Job.ScoreText)
		}
		jobsDo(t, c, "ZREM", "work:dead", jobsDead("b3", "mail"))
		jobsDo(t, c, "ZADD", "work:dead", "XX", 999, jobsDead("b7", "mail"))
		res, err := NewJobsExecutor("work", 4).Execute(context.Background(), c, plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Done != 9 || res.GoneCount != 1 || res.Gone[0].Job.ID != "b3" || res.RescoredCount != 0 {
			t.Fatalf("%s result %+v", action, res)
		}
		if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 10 {
			t.Fatalf("%s: dead has %d members, want the 10 others", action, n)
		}
		var b strings.Builder
		RenderJobsResult(&b, action, res)
		if !strings.Contains(b.String(), "had left since the plan was made: b3\n") {
			t.Fatalf("%s result text:\n%s", action, b.String())
		}
		// Again for the other action.
		jobsDo(t, c, "DEL", "work:jobs:mail")
		for i := 0; i < 10; i++ {
			jobsDo(t, c, "ZADD", "work:dead", 100+i, jobsDead(fmt.Sprintf("b%d", i), "mail"))
		}
	}
}

// A job a bulk plan lists that left the set before its score was read is
// listed as gone, not with a time it never had.
func TestJobsBulkPlanListsAJobGoneBeforeItsScore(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	jobsDo(t, c, "ZADD", "work:dead", 100, jobsDead("b1", "mail"))
	p := JobsPlan{Action: JobsRequeue, Target: JobsTarget{Set: model.SetDead, All: true}, Total: 2, keys: keys}
	for _, id := range []string{"b0", "b1"} {
		p.Items = append(p.Items, JobItem{Job: model.ParseMember(model.SetDead, []byte(jobsDead(id, "mail")))})
	}
	if err := p.scoreItems(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	RenderJobsPlan(&b, p)
	if !strings.Contains(b.String(), "b0  mail  gone since it was read") || !strings.Contains(b.String(), "b1  mail  died_at 1970-01-01T00:01:40Z") {
		t.Fatalf("plan text:\n%s", b.String())
	}
}

func TestJobsBatchRecheckReportsWhatMoved(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	var refs []JobRef
	for i := 0; i < 10; i++ {
		id := fmt.Sprintf("b%d", i)
		jobsDo(t, c, "ZADD", "work:dead", 100+i, jobsDead(id, "mail"))
		refs = append(refs, JobRef{ID: id})
	}
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, Refs: refs})
	if err != nil {
		t.Fatal(err)
	}
	jobsDo(t, c, "ZREM", "work:dead", jobsDead("b3", "mail"))
	jobsDo(t, c, "ZADD", "work:dead", "XX", 999, jobsDead("b7", "mail"))
	res, err := NewJobsExecutor("work", 4).Execute(context.Background(), c, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Done != 8 || res.GoneCount != 1 || res.Gone[0].Job.ID != "b3" || res.RescoredCount != 1 || res.Rescored[0].Job.ID != "b7" || res.Calls != 3 {
		t.Fatalf("result %+v", res)
	}
	if n, _ := redis.Int(c.Do("LLEN", "work:jobs:mail")); n != 8 {
		t.Fatalf("queue has %d, want 8", n)
	}
	if s, _ := redis.String(c.Do("ZSCORE", "work:dead", jobsDead("b7", "mail"))); s != "999" {
		t.Fatalf("rescored member touched: score %q", s)
	}
	if line := JobsAuditLine(plan, res); line != "jobs requeue namespace=work set=dead ids=10 force=false planned=10 done=8 gone=1 rescored=1 unique_deleted=0" {
		t.Fatalf("audit line %q", line)
	}
	var b strings.Builder
	RenderJobsResult(&b, JobsRequeue, res)
	if !strings.Contains(b.String(), "b3@103") || !strings.Contains(b.String(), "b7@107") {
		t.Fatalf("result text:\n%s", b.String())
	}
}

func TestJobsBulkRequeueOneTypeResumes(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail", "bill"}, "mail,bill")
	for i := 0; i < 2500; i++ {
		name := "mail"
		if i%3 == 0 {
			name = "bill"
		}
		jobsDo(t, c, "ZADD", "work:dead", 1000+i, jobsDead(fmt.Sprintf("m%04d", i), name))
	}
	jobsDo(t, c, "ZADD", "work:dead", 5, "garbage")
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true, Job: "mail"})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Total != 1666 || len(plan.Items) != SampleSize {
		t.Fatalf("plan total %d, items %d", plan.Total, len(plan.Items))
	}
	ctx, cancel := context.WithCancel(context.Background())
	ex := NewJobsExecutor("work", 500)
	res, err := ex.Execute(ctx, c, plan, func(done, total int64) { cancel() })
	// A call takes at most 500 members and MaxBatchBytes. Cancelled at the
	// first reply, the run sends no more calls and reads the one sent
	// ahead of it.
	every := slices.Concat(plan.kept...)
	first := batchLen(every, 500)
	first += batchLen(every[first:], 500)
	if first < 200 || first > 1000 {
		t.Fatalf("first two calls take %d members", first)
	}
	if !errors.Is(err, context.Canceled) || res.Done != int64(first) || res.Calls != 2 || !strings.Contains(err.Error(), fmt.Sprintf("after %d jobs", first)) {
		t.Fatalf("interrupted run: done %d in %d calls, err %v", res.Done, res.Calls, err)
	}
	plan, err = PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true, Job: "mail"})
	if err != nil || plan.Total != int64(1666-first) {
		t.Fatalf("second plan: total %d, err %v", plan.Total, err)
	}
	res, err = ex.Execute(context.Background(), c, plan, nil)
	calls := 0
	for _, step := range plan.kept {
		for rest := step; len(rest) > 0; calls++ {
			rest = rest[batchLen(rest, 500):]
		}
	}
	if err != nil || res.Done != int64(1666-first) || res.GoneCount != 0 || res.Calls != calls || calls < 3 {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
	seen := map[string]int{}
	for _, raw := range q {
		j, _ := model.ParseJobFields([]byte(raw))
		seen[j.ID]++
		if j.Name != "mail" || string(j.Args) != jobsArgs || j.Fails != 0 {
			t.Fatalf("queued %s", raw)
		}
	}
	if len(seen) != 1666 || len(q) != 1666 {
		t.Fatalf("queue holds %d jobs, %d distinct, want 1666", len(q), len(seen))
	}
	if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 834+1 {
		t.Fatalf("dead keeps %d, want 835", n)
	}
}

func TestJobsDeleteUniqueKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"u"}, "u")
	uniq := func(id string) string {
		return fmt.Sprintf(`{"name":"u","id":%q,"t":1,"args":{"b":2,"a":"<x>"},"unique":true}`, id)
	}
	ukey := "work:unique:u:{\"a\":\"\\u003cx\\u003e\",\"b\":2}\n"
	jobsDo(t, c, "ZADD", "work:scheduled", 10, uniq("s1"))
	jobsDo(t, c, "SET", ukey, "1")
	_, res := jobsPlanExec(t, c, keys, JobsDelete, JobsTarget{Set: model.SetScheduled, Refs: []JobRef{{ID: "s1", Score: "10"}}}, 0)
	if res.Done != 1 || res.UniqueDeleted != 1 {
		t.Fatalf("scheduled: %+v", res)
	}
	if n, _ := redis.Int(c.Do("EXISTS", ukey)); n != 0 {
		t.Fatal("unique key of a deleted scheduled job kept")
	}
	// A dead job never holds the key in v0.5.1 ("1" belongs to a newer copy).
	jobsDo(t, c, "ZADD", "work:dead", 10, uniq("d1"))
	jobsDo(t, c, "SET", ukey, "1")
	_, res = jobsPlanExec(t, c, keys, JobsDelete, JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "d1"}}}, 0)
	if res.Done != 1 || res.UniqueDeleted != 0 {
		t.Fatalf("dead: %+v", res)
	}
	if n, _ := redis.Int(c.Do("EXISTS", ukey)); n != 1 {
		t.Fatal("unique key of a newer copy deleted")
	}
	// A key whose value is this very job (newer gocraft builds) is its own.
	jobsDo(t, c, "ZADD", "work:retry", 10, uniq("r1"))
	jobsDo(t, c, "SET", ukey, uniq("r1"))
	_, res = jobsPlanExec(t, c, keys, JobsDelete, JobsTarget{Set: model.SetRetry, Refs: []JobRef{{ID: "r1"}}}, 0)
	if res.UniqueDeleted != 1 {
		t.Fatalf("retry: %+v", res)
	}
	// A member that is not JSON is deleted by its bytes and score.
	jobsDo(t, c, "ZADD", "work:dead", "2.5", "\x00junk")
	_, res = jobsPlanExec(t, c, keys, JobsDelete, JobsTarget{Set: model.SetDead, Refs: []JobRef{{Raw: []byte("\x00junk"), Score: "2.5"}}}, 0)
	if res.Done != 1 {
		t.Fatalf("junk: %+v", res)
	}
	// Queue delete: exact bytes, with the unique key.
	jobsDo(t, c, "RPUSH", "work:jobs:u", "a", uniq("q1"), "b")
	jobsDo(t, c, "SET", ukey, "1")
	_, res = jobsPlanExec(t, c, keys, JobsDelete, JobsTarget{Queue: "u", Refs: []JobRef{{ID: "q1"}}}, 0)
	q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:u", 0, -1))
	if res.Done != 1 || res.UniqueDeleted != 1 || fmt.Sprint(q) != "[a b]" {
		t.Fatalf("queue delete: %+v, queue %q", res, q)
	}
	// Queue delete by exact bytes (a member that is not JSON), beside one by
	// id whose id is those same bytes: each finds only its own.
	jobsDo(t, c, "RPUSH", "work:jobs:u", "\x00junk", `{"name":"u","id":"\u0000junk","t":1,"args":{}}`, "c")
	_, res = jobsPlanExec(t, c, keys, JobsDelete, JobsTarget{Queue: "u", Refs: []JobRef{{Raw: []byte("\x00junk")}}}, 0)
	q, _ = redis.Strings(c.Do("LRANGE", "work:jobs:u", 0, -1))
	if res.Done != 1 || len(q) != 4 || q[2] == "\x00junk" {
		t.Fatalf("queue delete by bytes: %+v, queue %q", res, q)
	}
}

func TestJobsReadOnlyPlansButNeverWrites(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail"}, "mail")
	jobsDo(t, c, "ZADD", "work:dead", 1, jobsDead("a1", "mail"))
	ro := redisq.ReadOnlyConn(c)
	plan, err := PlanJobs(context.Background(), ro, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true})
	if err != nil || plan.Total != 1 {
		t.Fatalf("read-only plan: %d, %v", plan.Total, err)
	}
	if _, err := NewJobsExecutor("work", 0).Execute(context.Background(), ro, plan, nil); !errors.Is(err, redisq.ErrReadOnly) {
		t.Fatalf("read-only execute: %v", err)
	}
	var b strings.Builder
	RenderJobsPlan(&b, plan)
	if !strings.Contains(b.String(), "every job in dead") || !strings.Contains(b.String(), "a1") {
		t.Fatalf("plan text:\n%s", b.String())
	}
}

// A requeue into a paused type is planned with a warning that its jobs
// wait until it is unpaused, and the bulk plan's counts say paused.
func TestJobsRequeuePausedWarns(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail", "sms"}, "mail,sms")
	jobsDo(t, c, "SET", keys.Paused("mail"), "1")
	jobsDo(t, c, "ZADD", "work:dead", 1, jobsDead("m1", "mail"))
	jobsDo(t, c, "ZADD", "work:dead", 2, jobsDead("s1", "sms"))
	for _, target := range []JobsTarget{
		{Set: model.SetDead, Refs: []JobRef{{ID: "m1"}, {ID: "s1"}}},
		{Set: model.SetDead, All: true},
	} {
		plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, target)
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		warned := strings.Join(plan.Warnings, "\n")
		if !strings.Contains(warned, "mail paused") || strings.Contains(warned, "sms") {
			t.Errorf("%+v: warnings %q, want one of mail paused", target, plan.Warnings)
		}
		var out strings.Builder
		RenderJobsPlan(&out, plan)
		if !strings.Contains(out.String(), "mail paused") {
			t.Errorf("the plan does not say mail is paused:\n%s", out.String())
		}
		if target.All && !strings.Contains(out.String(), "serves it (paused)") {
			t.Errorf("the bulk plan's counts do not say paused:\n%s", out.String())
		}
	}
	// A delete warns of nothing paused.
	plan, err := PlanJobs(context.Background(), c, keys, JobsDelete, JobsTarget{Set: model.SetDead, Refs: []JobRef{{ID: "m1"}}})
	if err != nil || strings.Contains(strings.Join(plan.Warnings, "\n"), "paused") {
		t.Errorf("delete: %v, warnings %q", err, plan.Warnings)
	}
}
