package reaper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// drainKillChildEnv, when set (to "<redis address> <journal dir>"), turns
// TestDrainKillChild into the process TestDrainParkKilled kills.
const drainKillChildEnv = "WORKQ_DRAIN_KILL_CHILD"

// TestDrainKillChild is not a test of its own: run by TestDrainParkKilled
// as a child process, it plans and runs a journalled park of the mail
// jobs with args.bad 1, printing "done" after each script call. Without
// the variable it returns at once.
func TestDrainKillChild(t *testing.T) {
	v := os.Getenv(drainKillChildEnv)
	if v == "" {
		return
	}
	f := strings.Fields(v)
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(1)
	}
	c, err := redis.Dial("tcp", f[0])
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	plan, err := PlanDrain(ctx, c, redisq.NewKeys("work"), DrainPark, "mail", drainQuery(t, "args.bad:1"))
	if err != nil {
		fail(err)
	}
	w, err := journal.Dir{Path: f[1]}.Create(journal.Header{Address: f[0], Namespace: "work", Op: journal.OpQueuePark, Command: "jobs queue mail park"})
	if err != nil {
		fail(err)
	}
	fmt.Println("planned", len(plan.Items))
	res, err := NewDrainExecutor("work", DefaultBatch).WithJournal(w).Execute(ctx, c, plan, func(done, total int64) {
		fmt.Println("done", done)
	})
	fmt.Println("finished", res.Done, err)
	os.Exit(0)
}

// A park by query of a flooded queue, killed with SIGKILL at random points
// (while it plans, between script calls, or while a call runs in Redis,
// which finishes it anyway) and run again: every job is in exactly one
// place, queued or dead, and the queue holds the jobs left in their order.
// The undo of every run, the last first, puts every parked job back and
// empties the dead set; the jobs never parked keep their order. 20,000
// matching jobs of 200,000 and 8 kills; with WORKQ_STRESS=1 (make stress)
// 100,000 of 1,000,000 and 20 kills.
func TestDrainParkKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes: not in -short")
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	n, wantKills := 200000, 8
	if os.Getenv("WORKQ_STRESS") == "1" {
		n, wantKills = 1000000, 20
	}
	jobs := drainFill(t, c, n, 10)
	good, bad := splitBad(jobs)
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	kills := 0
	for round := 0; round < 3*wantKills && kills < wantKills; round++ {
		calls, finished := killChild(t, exe, "TestDrainKillChild", drainKillChildEnv+"="+srv.Addr()+" "+dir,
			rng.IntN(6), time.Duration(rng.IntN(400))*time.Millisecond, func(line string) bool { return line == "planned 0" })
		if finished {
			t.Fatalf("round %d: the child finished before it was killed (after %d calls)", round, calls)
		}
		kills++
		drainCheckOnce(t, c, jobs, false)
	}
	if kills < wantKills {
		t.Fatalf("only %d kills", kills)
	}
	t.Logf("%d kills", kills)
	ctx := context.Background()
	plan, err := PlanDrain(ctx, c, redisq.NewKeys("work"), DrainPark, "mail", drainQuery(t, "args.bad:1"))
	if err != nil {
		t.Fatal(err)
	}
	d := journal.Dir{Path: dir}
	w, err := d.Create(journal.Header{Address: srv.Addr(), Namespace: "work", Op: journal.OpQueuePark, Command: "jobs queue mail park"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewDrainExecutor("work", DefaultBatch).WithJournal(w).Execute(ctx, c, plan, nil)
	if err != nil || res.Done != int64(len(plan.Items)) || res.Gone != 0 {
		t.Fatalf("last run: %+v %v (plan %d)", res, err, len(plan.Items))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("last run after %d kills parked %d of %d, %d calls, longest %s", kills, res.Done, len(bad), res.Calls, res.Longest)
	drainCheckOnce(t, c, jobs, true)

	acts, _, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(acts, func(i, j int) bool { return acts[i].Header.Time.After(acts[j].Header.Time) })
	var restored, maybe int64
	for _, a := range acts {
		if a.Header.Op != journal.OpQueuePark {
			continue
		}
		start := time.Now()
		p, ures := drainUndo(t, c, d, a)
		t.Logf("undo of %s: %d items, %d calls, %s", a.Header.ID, len(p.Items), ures.Calls, time.Since(start))
		restored += ures.Restored
		maybe += p.Maybe
	}
	if restored != int64(len(bad)) || undoInt(t, c, "ZCARD", "work:dead") != 0 {
		t.Fatalf("undo restored %d of %d, %d left in dead", restored, len(bad), undoInt(t, c, "ZCARD", "work:dead"))
	}
	q := drainQueue(t, c)
	if len(q) != len(jobs) {
		t.Fatalf("%d queued after the undo, want %d", len(q), len(jobs))
	}
	stay, _ := splitBad(q)
	if strings.Join(stay, "\n") != strings.Join(good, "\n") {
		t.Fatal("the jobs never parked changed their order")
	}
	// Jobs of a call whose reply was never read go back at the head; every
	// other one behind the job that was ahead of it, as before.
	at := 0
	for at < len(q) && strings.Contains(q[at], `"bad":1`) && q[at] != jobs[at] {
		at++
	}
	if strings.Join(drainWithout(q[at:], q[:at]), "\n") != strings.Join(drainWithout(jobs, q[:at]), "\n") {
		t.Fatalf("the queue after the undo is not as before (apart from %d jobs at the head)", at)
	}
	t.Logf("undo put back %d (%d of killed calls at the head)", restored, at)
}

// drainUndo plans and runs the undo of a, journalled in d, in calls of
// the size the command line uses.
func drainUndo(t *testing.T, c redis.Conn, d journal.Dir, a *journal.Action) (UndoPlan, UndoResult) {
	t.Helper()
	plan, err := PlanUndo(context.Background(), c, redisq.NewKeys("work"), a)
	if err != nil {
		t.Fatalf("plan undo: %v", err)
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
	res, err := NewUndoer(DefaultBatch).Execute(context.Background(), c, plan, w, nil)
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	return plan, res
}

// drainWithout is jobs less those in drop.
func drainWithout(jobs, drop []string) []string {
	gone := map[string]bool{}
	for _, j := range drop {
		gone[j] = true
	}
	out := make([]string, 0, len(jobs))
	for _, j := range jobs {
		if !gone[j] {
			out = append(out, j)
		}
	}
	return out
}

// drainCheckOnce checks every job is in exactly one place, the queue or
// the dead set, and the queue is the jobs in their first order less those
// parked; with done, every matching job is parked.
func drainCheckOnce(t *testing.T, c redis.Conn, jobs []string, done bool) {
	t.Helper()
	// Both read in one transaction: a call the killed child sent may still
	// run in Redis, and it must not fall between the two reads.
	for _, cmd := range [][]any{{"MULTI"}, {"ZRANGE", "work:dead", 0, -1}, {"LRANGE", "work:jobs:mail", 0, -1}} {
		if err := c.Send(cmd[0].(string), cmd[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	both, err := redis.Values(c.Do("EXEC"))
	if err != nil || len(both) != 2 {
		t.Fatalf("read dead and queue: %v", err)
	}
	dead, err := redis.Strings(both[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	queued, err := redis.Strings(both[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	parked := map[string]bool{}
	for _, raw := range dead {
		i := strings.Index(raw, `,"err":`)
		if i < 0 {
			t.Fatalf("dead member not parked: %.100s", raw)
		}
		orig := raw[:i] + "}"
		if parked[orig] {
			t.Fatalf("parked twice: %.100s", raw)
		}
		parked[orig] = true
	}
	// The queue, in run order, is the jobs less the parked, in order.
	k := len(queued) - 1
	for _, j := range jobs {
		if parked[j] {
			continue
		}
		if k < 0 || queued[k] != j {
			t.Fatalf("queue differs at run position %d (%d queued, %d parked, %d jobs)", len(queued)-1-k, len(queued), len(parked), len(jobs))
		}
		k--
	}
	if k != -1 || len(queued)+len(parked) != len(jobs) {
		t.Fatalf("%d queued and %d parked, want %d in all", len(queued), len(parked), len(jobs))
	}
	if done && len(parked) != len(jobs)/10 {
		t.Fatalf("finished with %d parked, want %d", len(parked), len(jobs)/10)
	}
}
