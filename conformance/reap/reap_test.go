// Package reap_test checks the reaper against the real gocraft/work
// v0.5.1: on state made by real pools killed with SIGKILL, workq-tui's
// reaper leaves the same keys and values as gocraft/work's own dead pool reaper (run by a
// live WorkerPool 10 s after its Start); for a pool without a heartbeat it
// requeues the jobs that upstream strands; a pool that beats again is left
// alone; and while live gocraft/work pools and their own reapers run, every
// job is processed exactly once and the locks end at 0.
package reap_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(redistest.Main(m))
}

// runCLI runs the built workq-tui with args, stdin not a terminal, and
// returns its stdout, stderr and exit status.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	r := redistest.Run(t, redistest.Binary(t), nil, args...)
	return r.Stdout, r.Stderr, r.Code
}

const ns = "conf"

// waitDead waits until Redis time says every pool is dead by gocraft's rule.
func waitDead(t *testing.T, c redis.Conn, pools ...*gcstate.KilledPool) {
	t.Helper()
	var last int64
	for _, p := range pools {
		if p.HeartbeatAt > last {
			last = p.HeartbeatAt
		}
	}
	gcstate.WaitFor(t, 30*time.Second, "the killed pools to be 10 s dead", func() (bool, error) {
		return !time.Unix(last, 0).Add(model.DefaultDeadAfter).After(redistest.Time(t, c)), nil
	})
}

// copyAll copies every key of src into dst with DUMP and RESTORE.
func copyAll(t *testing.T, src, dst redis.Conn) {
	t.Helper()
	keys, err := redis.Strings(src.Do("KEYS", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		payload, err := redis.Bytes(src.Do("DUMP", k))
		if err != nil {
			t.Fatalf("DUMP %s: %v", k, err)
		}
		redistest.Do(t, dst, "RESTORE", k, 0, payload, "REPLACE")
	}
}

// pause makes gocraft's pools leave a job type alone, so that the live pool
// that runs upstream's reaper does not process what it requeues.
func pause(t *testing.T, c redis.Conn, jobs ...string) {
	t.Helper()
	k := redisq.NewKeys(ns)
	for _, j := range jobs {
		redistest.Do(t, c, "SET", k.Paused(j), "1")
	}
}

// reapUpstream starts a live gocraft/work pool registering jobs (all paused)
// and waits until its dead pool reaper has removed every pool in dead from
// the set, then stops it (which removes its own heartbeat and set entry).
func reapUpstream(t *testing.T, addr string, jobs []gcstate.JobType, dead ...string) {
	t.Helper()
	c := gcstate.RedisPool(t, addr).Get()
	defer c.Close()
	live := gcstate.StartLive(t, gcstate.Spec{Addr: addr, Namespace: ns, Concurrency: 1, Jobs: jobs})
	gcstate.WaitFor(t, 40*time.Second, "gocraft/work's reaper to reap the dead pools", func() (bool, error) {
		for _, id := range dead {
			member, err := redis.Bool(c.Do("SISMEMBER", redisq.NewKeys(ns).WorkerPools(), id))
			if err != nil || member {
				return false, err
			}
		}
		return true, nil
	})
	// Its reap is one pass; the last pool's stale lock cleanup follows the
	// SREM in the same pass, so give it a moment before stopping.
	time.Sleep(300 * time.Millisecond)
	live.Stop()
}

// ownKeys are written by the live pool that runs upstream's reaper, not by
// the reap: its periodic enqueuer's timestamp.
var ownKeys = []string{ns + ":last_periodic_enqueue"}

func diff(want, got map[string]string) string {
	for _, k := range ownKeys {
		delete(want, k)
		delete(got, k)
	}
	seen := map[string]bool{}
	var keys []string
	for k := range want {
		seen[k] = true
		keys = append(keys, k)
	}
	for k := range got {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		if want[k] != got[k] {
			fmt.Fprintf(&sb, "%s:\n  upstream %.400q\n  ours     %.400q\n", k, want[k], got[k])
		}
	}
	return sb.String()
}

// asMultiset sorts the items of a dumped list.
func asMultiset(v string) string {
	typ, body, _ := strings.Cut(v, ":")
	items := strings.Split(body, "\n")
	sort.Strings(items)
	return typ + ":" + strings.Join(items, "\n")
}

var jobTypes = []gcstate.JobType{
	{Name: "alpha"},
	{Name: "capped", MaxConcurrency: 1},
	{Name: "beta:x"},
	{Name: "gamma"},
}

// TestReapMatchesGocraftReaper: three pools killed hard, four job types (one
// with MaxConcurrency, one with ':' in its name), two queues shared by two
// dead pools. Both copies start identical; gocraft/work's reaper cleans one,
// ours the other; the end states must match key by key.
func TestReapMatchesGocraftReaper(t *testing.T) {
	t.Parallel()
	srvUp, srvUs := redistest.Start(t), redistest.Start(t)
	up, us := srvUp.Dial(), srvUs.Dial()
	addr := srvUp.Addr()

	k1 := gcstate.StartKilled(t, gcstate.Spec{Addr: addr, Namespace: ns, Concurrency: 4,
		Jobs: []gcstate.JobType{{Name: "alpha", Enqueue: 6}, {Name: "capped", MaxConcurrency: 1, Enqueue: 3}}})
	k2 := gcstate.StartKilled(t, gcstate.Spec{Addr: addr, Namespace: ns, Concurrency: 5,
		Jobs: []gcstate.JobType{{Name: "alpha", Enqueue: 4}, {Name: "beta:x", Enqueue: 4}}})
	k3 := gcstate.StartKilled(t, gcstate.Spec{Addr: addr, Namespace: ns, Concurrency: 3,
		Jobs: []gcstate.JobType{{Name: "beta:x", Enqueue: 2}, {Name: "gamma", Enqueue: 5}}})
	t.Logf("killed pools hold %v, %v, %v", k1.InProgress, k2.InProgress, k3.InProgress)
	waitDead(t, up, k1, k2, k3)
	pause(t, up, "alpha", "capped", "beta:x", "gamma")
	copyAll(t, up, us)
	if a, b := redistest.Dump(t, up, "*"), redistest.Dump(t, us, "*"); diff(a, b) != "" {
		t.Fatalf("copies differ:\n%s", diff(a, b))
	}

	reapUpstream(t, addr, jobTypes, k1.ID, k2.ID, k3.ID)
	// Ours: the command line, as an operator runs it.
	out, stderr, code := runCLI(t, "--redis", srvUs.Addr(), "-n", ns, "reap", "--all-dead", "--yes", "--batch", "2")
	if code != 0 {
		t.Fatalf("workq-tui reap exit %d: %s\n%s", code, stderr, out)
	}
	var held int64
	for _, k := range []*gcstate.KilledPool{k1, k2, k3} {
		for _, n := range k.InProgress {
			held += n
		}
	}
	if want := fmt.Sprintf("Done: %d jobs requeued, 3 of 3 pools reaped.", held); !strings.Contains(out, want) {
		t.Fatalf("output lacks %q:\n%s", want, out)
	}

	want, got := redistest.Dump(t, up, ns+":*"), redistest.Dump(t, us, ns+":*")
	keys := redisq.NewKeys(ns)
	for _, shared := range []string{"alpha", "beta:x"} {
		q := keys.Queue(shared)
		want[q], got[q] = asMultiset(want[q]), asMultiset(got[q])
	}
	if d := diff(want, got); d != "" {
		t.Fatalf("end states differ:\n%s", d)
	}
	for _, j := range jobTypes {
		if v := got[keys.Lock(j.Name)]; v != "" && v != "string:0" {
			t.Errorf("%s = %s, want 0", keys.Lock(j.Name), v)
		}
	}
	t.Logf("%d keys compared, %d jobs requeued", len(want), held)
}

// TestReapPoolWithoutHeartbeat: a killed pool whose heartbeat is gone.
// Upstream SREMs it and cleans its lock_info for the reaping pool's job
// types, but moves no job: they stay in progress for ever (upstream defect
// 1, asserted here on purpose). Ours requeues them; everything else is the
// same.
func TestReapPoolWithoutHeartbeat(t *testing.T) {
	t.Parallel()
	srvUp, srvUs := redistest.Start(t), redistest.Start(t)
	up, us := srvUp.Dial(), srvUs.Dial()
	addr := srvUp.Addr()
	keys := redisq.NewKeys(ns)

	k := gcstate.StartKilled(t, gcstate.Spec{Addr: addr, Namespace: ns, Concurrency: 3,
		Jobs: []gcstate.JobType{{Name: "alpha", Enqueue: 2}, {Name: "capped", MaxConcurrency: 1, Enqueue: 2}}})
	redistest.Do(t, up, "DEL", keys.Heartbeat(k.ID))
	pause(t, up, "alpha", "capped")
	copyAll(t, up, us)

	reapUpstream(t, addr, []gcstate.JobType{{Name: "alpha"}, {Name: "capped", MaxConcurrency: 1}}, k.ID)
	out, stderr, code := runCLI(t, "--redis", srvUs.Addr(), "-n", ns, "reap", "--all-dead", "--yes")
	if code != 0 || !strings.Contains(out, "pool "+k.ID+" (no heartbeat)") || !strings.Contains(out, "1 of 1 pool reaped") {
		t.Fatalf("workq-tui reap exit %d: %s\n%s", code, stderr, out)
	}

	want, got := redistest.Dump(t, up, ns+":*"), redistest.Dump(t, us, ns+":*")
	for job, n := range k.InProgress {
		ip, q := keys.InProgress(job, k.ID), keys.Queue(job)
		// Upstream: still in progress, nothing requeued.
		if items := strings.Split(strings.TrimPrefix(want[ip], "list:"), "\n"); want[ip] == "" || int64(len(items)) != n {
			t.Errorf("upstream left %s = %q, want its %d jobs (upstream defect 1)", ip, want[ip], n)
		}
		// Ours: requeued onto the queue, in-progress list gone.
		if _, ok := got[ip]; ok {
			t.Errorf("ours left %s = %q", ip, got[ip])
		}
		if want := fmt.Sprintf("%s: %d job", job, n); !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
		// The queue on our side is upstream's queue plus the held jobs.
		wantQ := strings.TrimPrefix(want[ip], "list:")
		if rest := strings.TrimPrefix(want[q], "list:"); rest != "" {
			wantQ += "\n" + rest
		}
		if got[q] != "list:"+wantQ {
			t.Errorf("ours %s = %q, want %q", q, got[q], "list:"+wantQ)
		}
		delete(want, ip)
		delete(want, q)
		delete(got, q)
	}
	if d := diff(want, got); d != "" {
		t.Fatalf("apart from the requeued jobs, end states differ:\n%s", d)
	}
}

// TestReapPoolBeatsAgain: the plan is made while the pool is dead; its
// heartbeat is then written again (as a pool whose process was only frozen
// would); the reap changes nothing and says so.
func TestReapPoolBeatsAgain(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := redisq.NewKeys(ns)
	k := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: "alpha", Enqueue: 3}}})
	waitDead(t, c, k)
	pool := gcstate.RedisPool(t, srv.Addr())
	snap, err := redisq.NewClient(pool, ns, model.DefaultDeadAfter).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reaper.NewPlan(snap, reaper.Targets{PoolIDs: []string{k.ID}})
	if err != nil {
		t.Fatal(err)
	}
	redistest.Do(t, c, "HSET", keys.Heartbeat(k.ID), "heartbeat_at", redistest.Time(t, c).Unix())
	before := redistest.Dump(t, c, "*")
	res, err := reaper.NewReaper(pool, ns, 0).Reap(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("pool %s is alive again, not reaped", k.ID); res.Pools[0].Skipped != want {
		t.Fatalf("result %+v, want %q", res.Pools[0], want)
	}
	if d := diff(before, redistest.Dump(t, c, "*")); d != "" {
		t.Fatalf("state changed:\n%s", d)
	}
}

// TestReapWhileLivePoolsRun: dead pools hold jobs; live gocraft/work pools
// of the same job types process every job (counted in the handlers) while
// their own dead pool reapers and ours (a small batch, so many script calls)
// run at the same time. Every job is processed exactly once, no job is left
// anywhere, and lock and lock_info end at 0.
func TestReapWhileLivePoolsRun(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Dial()
	addr := srv.Addr()
	keys := redisq.NewKeys(ns)
	jobs := []gcstate.JobType{{Name: "alpha", Enqueue: 30}, {Name: "capped", MaxConcurrency: 2, Enqueue: 12}}
	total := 0
	var dead []*gcstate.KilledPool
	for i := 0; i < 3; i++ {
		k := gcstate.StartKilled(t, gcstate.Spec{Addr: addr, Namespace: ns, Concurrency: 6, Jobs: jobs})
		dead = append(dead, k)
		for _, j := range jobs {
			total += j.Enqueue
		}
	}
	waitDead(t, c, dead...)

	var mu sync.Mutex
	seen := map[string]int{}
	handler := func(j *work.Job) error {
		mu.Lock()
		seen[j.ID]++
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		return nil
	}
	type ctx struct{}
	var pools []*work.WorkerPool
	start := time.Now()
	for i := 0; i < 2; i++ {
		rp := gcstate.RedisPool(t, addr)
		wp := work.NewWorkerPool(ctx{}, 3, ns, rp)
		wp.JobWithOptions("alpha", work.JobOptions{}, handler)
		wp.JobWithOptions("capped", work.JobOptions{MaxConcurrency: 2}, handler)
		wp.Start()
		pools = append(pools, wp)
	}
	stopped := false
	stopAll := func() {
		if !stopped {
			stopped = true
			for _, wp := range pools {
				wp.Stop()
			}
		}
	}
	t.Cleanup(stopAll)

	// Their reapers fire 10 s after Start; ours starts just before, with a
	// batch of 1 and a pause after each call, so that its reap spans theirs
	// and both reap the same pools at the same time.
	time.Sleep(time.Until(start.Add(9800 * time.Millisecond)))
	pool := gcstate.RedisPool(t, addr)
	snap, err := redisq.NewClient(pool, ns, model.DefaultDeadAfter).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reaper.NewPlan(snap, reaper.Targets{AllDead: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := reaper.NewReaper(pool, ns, 1).Reap(context.Background(), plan, func(int64, int64) {
		time.Sleep(25 * time.Millisecond)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ours moved %d of %d jobs in progress and reaped %d of %d pools (the rest by gocraft/work's reapers)",
		res.TotalMoved(), plan.TotalJobs(), countReaped(res), len(plan.Pools))

	gcstate.WaitFor(t, 60*time.Second, "every job to be processed", func() (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) >= total, nil
	})
	time.Sleep(500 * time.Millisecond) // a duplicate, if any, would show now
	stopAll()

	mu.Lock()
	defer mu.Unlock()
	if len(seen) != total {
		t.Errorf("%d distinct jobs processed, want %d", len(seen), total)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("job %s processed %d times", id, n)
		}
	}
	d := redistest.Dump(t, c, ns+":*")
	for key, v := range d {
		if strings.HasSuffix(key, ":inprogress") || (strings.HasPrefix(key, ns+":jobs:") && strings.HasPrefix(v, "list:")) {
			t.Errorf("%s still holds %q", key, v)
		}
	}
	for _, j := range jobs {
		if v := d[keys.Lock(j.Name)]; v != "string:0" {
			t.Errorf("%s = %q, want 0", keys.Lock(j.Name), v)
		}
		if li := d[keys.LockInfo(j.Name)]; li != "" {
			for _, f := range strings.Split(strings.TrimPrefix(li, "hash:"), "\n") {
				if !strings.HasSuffix(f, "=0") {
					t.Errorf("%s has %s, want every field 0", keys.LockInfo(j.Name), f)
				}
			}
		}
	}
	if v := d[keys.WorkerPools()]; v != "" {
		t.Errorf("worker_pools = %q after every pool stopped or was reaped", v)
	}
}

func countReaped(r reaper.Result) int {
	n := 0
	for _, p := range r.Pools {
		if p.Reaped {
			n++
		}
	}
	return n
}
