package reaper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// jobsKillChildEnv, when set (to a Redis address), turns TestJobsKillChild
// into the process that TestJobsBulkRequeueKilled kills.
const jobsKillChildEnv = "WORKQ_JOBS_KILL_CHILD"

// TestJobsKillChild is not a test of its own: run by
// TestJobsBulkRequeueKilled as a child process, it plans and runs a bulk
// requeue of the dead "mail" jobs, printing the count after each script
// call. Without the variable it returns at once.
func TestJobsKillChild(t *testing.T) {
	addr := os.Getenv(jobsKillChildEnv)
	if addr == "" {
		return
	}
	c, err := redis.Dial("tcp", addr)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	keys := redisq.NewKeys("work")
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true, Job: "mail"})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("planned", plan.Total)
	res, err := NewJobsExecutor("work", 1000).Execute(context.Background(), c, plan, func(done, total int64) {
		fmt.Println("done", done)
	})
	fmt.Println("finished", res.Done, err)
	os.Exit(0)
}

// A bulk requeue killed with SIGKILL at random points (while it plans,
// between script calls, or while a call runs in Redis, which finishes it
// anyway) leaves every job in exactly one place, dead or queued, never both
// and never twice; running it again finishes the rest. 10 kills over 50,000
// jobs; with WORKQ_STRESS=1 (make stress) 40 kills over 200,000.
func TestJobsBulkRequeueKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes: not in -short")
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := jobsNS(t, c, []string{"mail", "bill"}, "mail,bill")
	n, others, wantKills := 50000, 500, 10
	if os.Getenv("WORKQ_STRESS") == "1" {
		n, others, wantKills = 200000, 2000, 40
	}
	for i := 0; i < n+others; i++ {
		name := "mail"
		if i >= n {
			name = "bill"
		}
		if err := c.Send("ZADD", "work:dead", 1700000000+i%5000, jobsDead(fmt.Sprintf("k%06d", i), name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n+others; i++ {
		if _, err := c.Receive(); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	kills := 0
	beat := func() {
		// The pool serving "mail" stays alive for the whole test.
		now, err := redis.Int64s(c.Do("TIME"))
		if err != nil {
			t.Fatal(err)
		}
		jobsDo(t, c, "HSET", "work:worker_pools:p1", "heartbeat_at", now[0])
	}
	for round := 0; round < 2*wantKills && kills < wantKills; round++ {
		beat()
		// Kill during the plan's scan (after a random delay), or after a
		// random number of script calls.
		calls, finished := killChild(t, exe, "TestJobsKillChild", jobsKillChildEnv+"="+srv.Addr(),
			rng.IntN(4), time.Duration(rng.IntN(40))*time.Millisecond, func(line string) bool { return line == "planned 0" })
		if finished {
			t.Fatalf("round %d: the child finished before it was killed (after %d calls)", round, calls)
		}
		kills++
		jobsCheckOnce(t, c, keys, n, others, false)
	}
	if kills < wantKills {
		t.Fatalf("only %d kills", kills)
	}
	beat()
	plan, err := PlanJobs(context.Background(), c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true, Job: "mail"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewJobsExecutor("work", 1000).Execute(context.Background(), c, plan, nil)
	if err != nil || res.Done != plan.Total || res.GoneCount != 0 {
		t.Fatalf("last run: %+v %v (plan %d)", res, err, plan.Total)
	}
	t.Logf("last run after %d kills requeued %d of %d, longest script call %s", kills, res.Done, n, res.Longest)
	jobsCheckOnce(t, c, keys, n, others, true)
}

// jobsCheckOnce checks every job is in exactly one place: dead (as it was)
// or the mail queue (requeued); with done, every mail job is queued.
func jobsCheckOnce(t *testing.T, c redis.Conn, keys redisq.Keys, n, others int, done bool) {
	t.Helper()
	where := map[string]string{}
	// Both read in one transaction: a call the killed child sent may still
	// run in Redis, and it must not fall between the two reads.
	for _, cmd := range [][]any{{"MULTI"}, {"ZRANGE", "work:dead", 0, -1}, {"LRANGE", keys.Queue("mail"), 0, -1}} {
		if err := c.Send(cmd[0].(string), cmd[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	both, err := redis.Values(c.Do("EXEC"))
	if err != nil || len(both) != 2 {
		t.Fatalf("read dead and queue: %v %v", both, err)
	}
	dead, err := redis.Strings(both[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range dead {
		j, _ := model.ParseJobFields([]byte(raw))
		where[j.ID] = "dead"
	}
	queued, err := redis.Strings(both[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range queued {
		j, _ := model.ParseJobFields([]byte(raw))
		if w, dup := where[j.ID]; dup {
			t.Fatalf("job %s queued and also in %s", j.ID, w)
		}
		if j.Name != "mail" || j.Fails != 0 || string(j.Args) != jobsArgs {
			t.Fatalf("queued job changed: %s", raw)
		}
		where[j.ID] = "queue"
	}
	if len(where) != n+others || len(dead)+len(queued) != n+others {
		t.Fatalf("%d jobs in dead and %d queued (%d distinct), want %d", len(dead), len(queued), len(where), n+others)
	}
	if done && (len(queued) != n || len(dead) != others) {
		t.Fatalf("finished with %d queued and %d dead, want %d and %d", len(queued), len(dead), n, others)
	}
}
