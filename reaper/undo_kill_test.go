package reaper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// undoKillChildEnv, when set (to "<mode> <redis address> <journal dir>"),
// turns TestUndoKillChild into the process TestUndoKilled kills.
const undoKillChildEnv = "WORKQ_UNDO_KILL_CHILD"

// TestUndoKillChild is not a test of its own: run by TestUndoKilled as a
// child process, it runs a journalled bulk requeue of the dead "mail" jobs
// (mode requeue) or the undo of the requeue in the journal (mode undo),
// printing "done" after each script call. Without the variable it returns
// at once.
func TestUndoKillChild(t *testing.T) {
	v := os.Getenv(undoKillChildEnv)
	if v == "" {
		return
	}
	f := strings.Fields(v)
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(1)
	}
	c, err := redis.Dial("tcp", f[1])
	if err != nil {
		fail(err)
	}
	read, err := redis.Dial("tcp", f[1])
	if err != nil {
		fail(err)
	}
	d := journal.Dir{Path: f[2]}
	ctx := context.Background()
	keys := redisq.NewKeys("work")
	if f[0] == "requeue" {
		plan, err := PlanJobs(ctx, c, keys, JobsRequeue, JobsTarget{Set: model.SetDead, All: true, Job: "mail"})
		if err != nil {
			fail(err)
		}
		w, err := d.Create(journal.Header{Address: f[1], Namespace: "work", Op: journal.OpRequeue, Command: "jobs dead requeue"})
		if err != nil {
			fail(err)
		}
		fmt.Println("planned", plan.Total)
		res, err := NewJobsExecutor("work", 50).WithJournal(NewJobsJournal(w, read)).Execute(ctx, c, plan, func(done, total int64) {
			fmt.Println("done", done)
		})
		fmt.Println("finished", res.Done, err)
		os.Exit(0)
	}
	a, err := undoKillRequeue(d)
	if err != nil {
		fail(err)
	}
	plan, err := PlanUndo(ctx, c, keys, a)
	if err != nil {
		fail(err)
	}
	w, err := d.Create(journal.Header{Address: f[1], Namespace: "work", Op: journal.OpUndo, UndoOf: a.Header.ID, Command: "undo"})
	if err != nil {
		fail(err)
	}
	fmt.Println("planned", len(plan.Items))
	res, err := NewUndoer(50).Execute(ctx, c, plan, w, func(done, total int64) { fmt.Println("done", done) })
	fmt.Println("finished", res.Restored, err)
	os.Exit(0)
}

// undoKillRequeue reads the requeue in d.
func undoKillRequeue(d journal.Dir) (*journal.Action, error) {
	acts, bad, err := d.List()
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, bad[0]
	}
	for _, a := range acts {
		if a.Header.Op == journal.OpRequeue {
			return a, nil
		}
	}
	return nil, fmt.Errorf("no requeue in %s", d.Path)
}

// SIGKILL at a random point of a journalled bulk requeue (while it plans,
// between calls, with calls in flight), then at a random point of its undo,
// then the undo run again to its end: after every kill each job is in
// exactly one place, dead or queued, the journal reads back, and at the end
// the namespace is as it was before the requeue, byte for byte. 10 rounds;
// with WORKQ_STRESS=1 (make stress) 40 rounds of more jobs.
func TestUndoKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes: not in -short")
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	n, rounds := 3000, 10
	if os.Getenv("WORKQ_STRESS") == "1" {
		n, rounds = 20000, 40
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	// child runs mode and kills it after a random number of calls (or,
	// with 0, after a random delay); it reports whether the child was
	// killed before it finished.
	child := func(mode, dir string, maxCalls int) (killed bool) {
		_, finished := killChild(t, exe, "TestUndoKillChild", undoKillChildEnv+"="+mode+" "+srv.Addr()+" "+dir,
			rng.IntN(maxCalls+1), time.Duration(rng.IntN(30))*time.Millisecond, nil)
		return !finished
	}
	kills := map[string]int{}
	for round := 0; round < rounds; round++ {
		jobsDo(t, c, "FLUSHALL")
		keys := jobsNS(t, c, []string{"mail"}, "mail")
		for i := 0; i < n; i++ {
			if err := c.Send("ZADD", "work:dead", 1700000000+i%997, jobsDead(fmt.Sprintf("k%06d", i), "mail")); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Do(""); err != nil {
			t.Fatal(err)
		}
		before := redistest.Dump(t, c, "work:*")
		dir := journal.Dir{Path: t.TempDir()}
		calls := n / 50
		if child("requeue", dir.Path, calls-1) {
			kills["requeue"]++
		}
		jobsCheckOnce(t, c, keys, n, 0, false)
		a, err := undoKillRequeue(dir)
		if err != nil {
			// Killed before the journal was created: nothing was written.
			dumpEqual(t, "killed before its journal", redistest.Dump(t, c, "work:*"), before)
			continue
		}
		if child("undo", dir.Path, len(a.Calls)) {
			kills["undo"]++
		}
		jobsCheckOnce(t, c, keys, n, 0, false)
		if _, bad, err := dir.List(); err != nil || len(bad) > 0 {
			t.Fatalf("round %d: journal unreadable: %v %v", round, err, bad)
		}
		plan, res := undoAction(t, c, dir, a)
		if res.MovedOn != 0 {
			t.Fatalf("round %d: last undo: %d moved on (plan %d items, %d maybe, %d not found)", round, res.MovedOn, len(plan.Items), plan.Maybe, plan.NotFound)
		}
		dumpEqual(t, fmt.Sprintf("round %d after the last undo", round), redistest.Dump(t, c, "work:*"), before)
	}
	if kills["requeue"] < rounds/2 || kills["undo"] < rounds/2 {
		t.Fatalf("too few kills landed: %v of %d rounds", kills, rounds)
	}
	t.Logf("kills: %v over %d rounds of %d jobs", kills, rounds, n)
}
