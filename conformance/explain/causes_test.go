package explain_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// causeCase is one namespace of a redis-server shared by the cases of
// TestExplainCausesAndTheirFixes.
type causeCase struct {
	t    *testing.T
	bin  string
	addr string
	ns   string
	keys redisq.Keys
	c    redis.Conn
}

func newCauseCase(t *testing.T, bin string, srv *redistest.Server, ns string) *causeCase {
	c := srv.Dial()
	t.Cleanup(func() { c.Close() })
	return &causeCase{t: t, bin: bin, addr: srv.Addr(), ns: ns, keys: redisq.NewKeys(ns), c: c}
}

// explain runs `explain job` with --redis and --namespace (the flags the
// fix commands repeat).
func (cc *causeCase) explain(job string) (first, out string, code int) {
	cc.t.Helper()
	r := redistest.Run(cc.t, cc.bin, nil, "--redis", cc.addr, "--namespace", cc.ns, "explain", job)
	first, _, _ = strings.Cut(r.Stdout, "\n")
	return first, r.Stdout, r.Code
}

// waitFirst waits until explain's first line starts with want and returns
// the whole output (exit 3).
func (cc *causeCase) waitFirst(job, want string, timeout time.Duration) string {
	cc.t.Helper()
	var out string
	var code int
	deadline := time.Now().Add(timeout)
	for {
		var first string
		first, out, code = cc.explain(job)
		if code == 3 && strings.HasPrefix(first, want) {
			return out
		}
		if time.Now().After(deadline) {
			cc.t.Fatalf("explain %s: want a first line %q (exit 3) within %s; exit %d\n%s", job, want, timeout, code, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitRunning waits until explain reports job running normally (exit 0).
func (cc *causeCase) waitRunning(job string, timeout time.Duration) {
	cc.t.Helper()
	var out string
	var code int
	deadline := time.Now().Add(timeout)
	for {
		var first string
		first, out, code = cc.explain(job)
		if code == 0 && first == job+": "+job+" is running normally" {
			return
		}
		if time.Now().After(deadline) {
			cc.t.Fatalf("explain %s after the fix: not running within %s; exit %d\n%s", job, timeout, code, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runFix finds the first "fix: " line of out, checks that it is
// `workq-tui --redis ADDR --namespace NS` and want, and runs it with --yes
// through the built binary.
func (cc *causeCase) runFix(out string, want ...string) {
	cc.t.Helper()
	prefix := "workq-tui --redis " + cc.addr + " --namespace " + cc.ns + " "
	var line string
	for _, l := range strings.Split(out, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(l), "fix: "); ok {
			line = f
			break
		}
	}
	if line != prefix+strings.Join(want, " ") {
		cc.t.Fatalf("fix line %q, want %q\n%s", line, prefix+strings.Join(want, " "), out)
	}
	args := append(strings.Fields(strings.TrimPrefix(line, "workq-tui ")), "--yes")
	if r := redistest.Run(cc.t, cc.bin, nil, args...); r.Code != 0 {
		cc.t.Fatalf("%s: exit %d\n%s%s", line, r.Code, r.Stdout, r.Stderr)
	}
}

// waitDrained waits until the lists are empty and job's lock is 0: the
// live pool ran every job the fix let go.
func (cc *causeCase) waitDrained(job string, lists ...string) {
	cc.t.Helper()
	gcstate.WaitFor(cc.t, 20*time.Second, job+" jobs run after the fix", func() (bool, error) {
		var n int64
		for _, l := range lists {
			n += cc.llen(l)
		}
		lock, err := redis.Int64(cc.c.Do("GET", cc.keys.Lock(job)))
		return n == 0 && lock == 0, err
	})
}

func (cc *causeCase) llen(key string) int64 {
	cc.t.Helper()
	n, err := redis.Int64(cc.c.Do("LLEN", key))
	if err != nil {
		cc.t.Fatal(err)
	}
	return n
}

// gate is a handler that blocks until open is called, counting the jobs
// that ended.
type gate struct {
	once sync.Once
	ch   chan struct{}
	mu   sync.Mutex
	done int
}

func newGate() *gate { return &gate{ch: make(chan struct{})} }

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

func (g *gate) handler(*work.Job) error {
	<-g.ch
	g.mu.Lock()
	g.done++
	g.mu.Unlock()
	return nil
}

func (g *gate) ended() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.done
}

// startPool starts a real WorkerPool with the given concurrency; register
// adds its job types. It is stopped when the test ends.
func startPool(t *testing.T, addr, ns string, concurrency uint, register func(*work.WorkerPool)) {
	t.Helper()
	rp := gcstate.RedisPool(t, addr)
	wp := work.NewWorkerPool(ctx{}, concurrency, ns, rp)
	register(wp)
	wp.Start()
	t.Cleanup(wp.Stop)
}

func quick(*work.Job) error { return nil }

// Each case is real gocraft/work v0.5.1 state in which one job type does not
// run: explain names that cause first with its fix; after the fix (the
// printed command run as printed, or, where no command fixes it, what the
// fix line says) explain reports the type running and exits 0.
func TestExplainCausesAndTheirFixes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, waits for pools to die")
	}
	bin := redistest.Binary(t)
	srv := redistest.Start(t)

	// Dead pools hold every slot: a pool killed while running two "sync"
	// jobs (MaxConcurrency 2) leaves lock 2 and lock_info naming it; the
	// live pool serving sync can take none of the third.
	t.Run("dead pools hold the lock", func(t *testing.T) {
		t.Parallel()
		cc := newCauseCase(t, bin, srv, "conf-explain-deadlock")
		// The live pool's one worker is busy with "hog" while the killed
		// pool takes its jobs, so that the live pool takes no sync job.
		hog := newGate()
		startPool(t, cc.addr, cc.ns, 1, func(wp *work.WorkerPool) {
			wp.JobWithOptions("sync", work.JobOptions{MaxConcurrency: 2}, quick)
			wp.Job("hog", hog.handler)
		})
		gcstate.Enqueue(t, cc.addr, cc.ns, "hog", 1)
		gcstate.WaitFor(t, 10*time.Second, "the live pool busy with hog", func() (bool, error) {
			return cc.llen(cc.keys.Queue("hog")) == 0, nil
		})
		killed := gcstate.StartKilled(t, gcstate.Spec{Addr: cc.addr, Namespace: cc.ns, Concurrency: 2,
			Jobs: []gcstate.JobType{{Name: "sync", MaxConcurrency: 2, Enqueue: 3}}})
		hog.open()
		if killed.InProgress["sync"] != 2 || cc.llen(cc.keys.Queue("sync")) != 1 {
			t.Fatalf("killed pool holds %v, sync queue %d; want 2 and 1", killed.InProgress, cc.llen(cc.keys.Queue("sync")))
		}
		out := cc.waitFirst("sync", "sync: dead pools hold 2 of sync's 2 slots", 30*time.Second)
		if !strings.Contains(out, "lock_info names dead pools: "+killed.ID) {
			t.Errorf("the evidence does not name the dead pool %s\n%s", killed.ID, out)
		}
		cc.runFix(out, "reap", killed.ID)
		cc.waitDrained("sync", cc.keys.Queue("sync"), cc.keys.InProgress("sync", killed.ID))
		cc.waitRunning("sync", 10*time.Second)
	})

	// Drift: lock at max_concurrency with nothing in progress (as a
	// failover or a crash between the lock and the list leaves it).
	t.Run("drift", func(t *testing.T) {
		t.Parallel()
		cc := newCauseCase(t, bin, srv, "conf-explain-drift")
		gcstate.StartLive(t, gcstate.Spec{Addr: cc.addr, Namespace: cc.ns, Concurrency: 2,
			Jobs: []gcstate.JobType{{Name: "index", MaxConcurrency: 2}}})
		redistest.Do(t, cc.c, "SET", cc.keys.Lock("index"), 2)
		gcstate.Enqueue(t, cc.addr, cc.ns, "index", 3)
		out := cc.waitFirst("index", "index: index's lock has drifted to max_concurrency", 10*time.Second)
		if !strings.Contains(out, "lock_info totals 0 and the in-progress lists hold 0") {
			t.Errorf("drift evidence\n%s", out)
		}
		if n := cc.llen(cc.keys.Queue("index")); n != 3 {
			t.Fatalf("the drifted lock let %d of 3 jobs run", 3-n)
		}
		cc.runFix(out, "repair-locks", "index")
		cc.waitDrained("index", cc.keys.Queue("index"))
		cc.waitRunning("index", 10*time.Second)
	})

	// Saturated: both slots of "render" run long jobs on a live pool and a
	// third waits. No write fixes that safely (workq-tui cannot end a
	// running handler, and max_concurrency is rewritten by every pool
	// start), so the fix line says to wait or raise MaxConcurrency, and no
	// command is printed. Waiting is the fix: once the jobs end, the third
	// runs and explain says running.
	t.Run("saturated", func(t *testing.T) {
		t.Parallel()
		cc := newCauseCase(t, bin, srv, "conf-explain-saturated")
		long := newGate()
		startPool(t, cc.addr, cc.ns, 3, func(wp *work.WorkerPool) {
			wp.JobWithOptions("render", work.JobOptions{MaxConcurrency: 2}, long.handler)
		})
		gcstate.Enqueue(t, cc.addr, cc.ns, "render", 3)
		var out string
		gcstate.WaitFor(t, 20*time.Second, "two running render jobs in the explanation", func() (bool, error) {
			out = cc.waitFirst("render", "render: render is saturated: every one of its 2 slots runs a job", 20*time.Second)
			return strings.Count(out, " running for ") == 2, nil
		})
		if strings.Contains(out, "fix: ") {
			t.Errorf("a saturated type got a fix command\n%s", out)
		}
		if !strings.Contains(out, "wait for the running jobs, or raise MaxConcurrency") || !strings.Contains(out, ", no check-in") {
			t.Errorf("saturated evidence or fix text\n%s", out)
		}
		long.open()
		gcstate.WaitFor(t, 20*time.Second, "the three render jobs to end", func() (bool, error) { return long.ended() == 3, nil })
		cc.waitRunning("render", 10*time.Second)
	})

	// Orphaned: a pool killed with three "thumb" jobs, whose heartbeat is
	// gone, is removed from worker_pools by the live pool's own
	// gocraft/work reaper, which moves none of its jobs (the upstream
	// defect): its in-progress list is found only by the orphan scan.
	t.Run("orphaned", func(t *testing.T) {
		t.Parallel()
		cc := newCauseCase(t, bin, srv, "conf-explain-orphan")
		killed := gcstate.StartKilled(t, gcstate.Spec{Addr: cc.addr, Namespace: cc.ns, Concurrency: 3,
			Jobs: []gcstate.JobType{{Name: "thumb", Enqueue: 3}}})
		redistest.Do(t, cc.c, "DEL", cc.keys.Heartbeat(killed.ID))
		gcstate.StartLive(t, gcstate.Spec{Addr: cc.addr, Namespace: cc.ns, Concurrency: 2,
			Jobs: []gcstate.JobType{{Name: "thumb"}}})
		gcstate.WaitFor(t, 30*time.Second, "gocraft/work's reaper to remove the killed pool", func() (bool, error) {
			member, err := redis.Bool(cc.c.Do("SISMEMBER", cc.keys.WorkerPools(), killed.ID))
			return !member, err
		})
		key := cc.keys.InProgress("thumb", killed.ID)
		out := cc.waitFirst("thumb", "thumb: 3 jobs of thumb held in orphaned in-progress lists", 10*time.Second)
		cc.runFix(out, "requeue", key)
		cc.waitDrained("thumb", key, cc.keys.Queue("thumb"))
		cc.waitRunning("thumb", 10*time.Second)
	})

	// Blocked by a unique key: gocraft/work v0.5.1 deletes the unique key
	// it rebuilds from the decoded args, so args holding an integer above
	// 2^53 leave the enqueue's key behind once the job ran; it refuses the
	// same enqueue for 24 h while no copy waits. The fix line deletes it
	// with delete-unique (the key's newline byte could not be pasted into
	// redis-cli); pasted into a shell, it runs.
	t.Run("unique key", func(t *testing.T) {
		t.Parallel()
		cc := newCauseCase(t, bin, srv, "conf-explain-unique")
		var mu sync.Mutex
		ran := 0
		startPool(t, cc.addr, cc.ns, 1, func(wp *work.WorkerPool) {
			wp.Job("digest", func(*work.Job) error {
				mu.Lock()
				ran++
				mu.Unlock()
				return nil
			})
		})
		enq := work.NewEnqueuer(cc.ns, gcstate.RedisPool(t, cc.addr))
		args := work.Q{"n": int64(1<<53 + 1)}
		if j, err := enq.EnqueueUnique("digest", args); err != nil || j == nil {
			t.Fatalf("enqueue unique: %v %v", j, err)
		}
		gcstate.WaitFor(t, 10*time.Second, "the digest job to run", func() (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return ran == 1, nil
		})
		out := cc.waitFirst("digest", "digest: 1 unique key of digest block new enqueues while no copy waits", 10*time.Second)
		key := cc.keys.UniquePrefix("digest") + `{"n":9007199254740993}` + "\n"
		if !strings.Contains(out, "keys: "+cc.keys.UniquePrefix("digest")+`{"n":9007199254740993}`) ||
			!strings.Contains(out, "the soonest expires in 23h") {
			t.Errorf("unique evidence\n%s", out)
		}
		if strings.Contains(out, "redis-cli") {
			t.Errorf("unique fix text names redis-cli, which cannot take the key's newline\n%s", out)
		}
		if j, err := enq.EnqueueUnique("digest", args); err != nil || j != nil {
			t.Fatalf("the key did not block the enqueue: %v %v", j, err)
		}
		// The fix line, pasted into a shell as printed, deletes the key.
		line := fixLineOf(out)
		want := "workq-tui --redis " + cc.addr + " --namespace " + cc.ns + ` delete-unique digest '{"n":9007199254740993}'`
		if line != want {
			t.Fatalf("fix line %q, want %q\n%s", line, want, out)
		}
		runInShell(t, cc.bin, line+" --yes")
		if n, _ := redis.Int(cc.c.Do("EXISTS", key)); n != 0 {
			t.Fatalf("the fix left the key")
		}
		cc.waitRunning("digest", 10*time.Second)
		if j, err := enq.EnqueueUnique("digest", args); err != nil || j == nil {
			t.Fatalf("enqueue after the DEL: %v %v", j, err)
		}
	})
}

// fixLineOf is the first "fix: " line of explain's output, without it.
func fixLineOf(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(l), "fix: "); ok {
			return f
		}
	}
	return ""
}

// runInShell runs line with sh as a person pastes it, workq-tui being
// bin, and fails the test unless it exits 0.
func runInShell(t *testing.T, bin, line string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "workq-tui")); err != nil {
		t.Fatal(err)
	}
	r := redistest.Run(t, "sh", []string{"PATH=" + dir + ":" + os.Getenv("PATH")}, "-c", line)
	if r.Code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", line, r.Code, r.Stdout, r.Stderr)
	}
}
