// Package gcstate makes real gocraft/work v0.5.1 state in a Redis, for the
// conformance tests: jobs enqueued with gocraft's Enqueuer, live worker pools
// that process them, and pools killed hard (SIGKILL) in the middle of their
// jobs, leaving in-progress lists, lock and lock_info behind exactly as a
// crashed worker process does.
//
// Killed pools run in a child process: the current test binary, started
// again with the environment variable GCSTATE_CHILD. Every test binary that
// calls StartKilled must therefore call MaybeRunChild first thing in its
// TestMain:
//
//	func TestMain(m *testing.M) {
//		gcstate.MaybeRunChild()
//		os.Exit(m.Run())
//	}
//
// Two things to know about gocraft/work when combining pools:
//
//   - Every pool runs the upstream dead pool reaper once 10 s after its Start
//     (then every 10 min). A live pool started before a killed pool's last
//     heartbeat will not reap it in that first run; StartKilled waits for the
//     next whole second before starting the child, so "StartLive, then
//     StartKilled" is safe. A live pool started later than that may reap the
//     killed pool once it is 10 s dead.
//   - Pools take jobs of every type they register: give live and killed pools
//     different job types, or the live pool takes the killed pool's jobs.
//
// The helpers are not safe to call concurrently for the same namespace (pool
// IDs are found by the change in <ns>:worker_pools).
package gcstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
)

// ChildEnv is the environment variable that turns a test binary into a
// killed-pool child (see MaybeRunChild).
const ChildEnv = "GCSTATE_CHILD"

// JobType is one job type a pool registers.
type JobType struct {
	Name string `json:"name"`
	// MaxConcurrency is gocraft's JobOptions.MaxConcurrency (0 = no cap).
	MaxConcurrency uint `json:"max_concurrency"`
	// Enqueue is how many jobs of this type are enqueued (with gocraft's
	// Enqueuer, args {"i": n}) before the pool starts.
	Enqueue int `json:"enqueue"`
}

// Spec describes a pool.
type Spec struct {
	// Addr is the Redis host:port; Namespace the gocraft/work namespace.
	Addr      string    `json:"addr"`
	Namespace string    `json:"namespace"`
	Jobs      []JobType `json:"jobs"`
	// Concurrency is the number of workers (default 1).
	Concurrency uint `json:"concurrency"`

	// Live pools only. Hold is how long each job's handler runs (0: it
	// returns at once). Block makes handlers run until the stop function is
	// called (Hold is then ignored), so the pool holds jobs in progress while
	// it is alive.
	Hold  time.Duration `json:"-"`
	Block bool          `json:"-"`

	// Killed pools only. InProgress is how many jobs, over all its types, the
	// pool must hold before it is killed. 0 means what a pool with busy
	// handlers ends up holding: min(Concurrency, sum over types of
	// min(Enqueue, MaxConcurrency)).
	InProgress int `json:"-"`
}

func (s Spec) concurrency() uint {
	if s.Concurrency == 0 {
		return 1
	}
	return s.Concurrency
}

// ExpectedInProgress is what a pool with handlers that never finish ends up
// holding: min(Concurrency, sum over types of min(Enqueue, MaxConcurrency)).
// How that total splits over the job types is fixed only when the sum is at
// most Concurrency (workers pick job types at random); otherwise any split
// is possible, so tests that check per-type counts should keep it so.
func (s Spec) ExpectedInProgress() int {
	total := 0
	for _, j := range s.Jobs {
		n := j.Enqueue
		if j.MaxConcurrency > 0 && int(j.MaxConcurrency) < n {
			n = int(j.MaxConcurrency)
		}
		total += n
	}
	if c := int(s.concurrency()); total > c {
		total = c
	}
	return total
}

// RedisPool is a redigo pool to addr, closed when the test ends.
func RedisPool(t testing.TB, addr string) *redis.Pool {
	t.Helper()
	p := newRedisPool(addr)
	t.Cleanup(func() { p.Close() })
	return p
}

func newRedisPool(addr string) *redis.Pool {
	return &redis.Pool{
		MaxActive:   0,
		MaxIdle:     32,
		IdleTimeout: time.Minute,
		Dial:        func() (redis.Conn, error) { return redis.Dial("tcp", addr) },
	}
}

// Enqueue enqueues n jobs of one type with gocraft/work's Enqueuer, args
// {"i": 0..n-1}, and returns their IDs in enqueue order.
func Enqueue(t testing.TB, addr, namespace, job string, n int) []string {
	t.Helper()
	p := newRedisPool(addr)
	defer p.Close()
	enq := work.NewEnqueuer(namespace, p)
	ids := make([]string, 0, n)
	for i := 0; i < n; i++ {
		j, err := enq.Enqueue(job, work.Q{"i": i})
		if err != nil {
			t.Fatalf("gcstate: enqueue %s: %v", job, err)
		}
		ids = append(ids, j.ID)
	}
	return ids
}

// WaitFor polls cond every 50 ms until it returns true, and fails the test
// when timeout passes first (or cond returns an error). what names the
// condition in the failure message.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("gcstate: waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gcstate: %s did not happen within %s", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// LivePool is a running gocraft/work WorkerPool in the test process.
type LivePool struct {
	ID string
	// Stop releases blocked handlers and stops the pool cleanly (upstream
	// Stop: heartbeat deleted, pool out of the set, lock_info left at 0). It
	// is safe to call more than once and is also called when the test ends.
	Stop func()
}

type gcContext struct{}

// StartLive enqueues the spec's jobs, starts a WorkerPool in this process and
// waits until its heartbeat is in Redis.
func StartLive(t testing.TB, spec Spec) *LivePool {
	t.Helper()
	for _, j := range spec.Jobs {
		if j.Enqueue > 0 {
			Enqueue(t, spec.Addr, spec.Namespace, j.Name, j.Enqueue)
		}
	}
	rp := newRedisPool(spec.Addr)
	before := members(t, spec.Addr, spec.Namespace)

	release := make(chan struct{})
	handler := func(*work.Job) error {
		switch {
		case spec.Block:
			<-release
		case spec.Hold > 0:
			select {
			case <-time.After(spec.Hold):
			case <-release:
			}
		}
		return nil
	}
	wp := work.NewWorkerPool(gcContext{}, spec.concurrency(), spec.Namespace, rp)
	for _, j := range spec.Jobs {
		wp.JobWithOptions(j.Name, work.JobOptions{MaxConcurrency: j.MaxConcurrency}, handler)
	}
	wp.Start()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			close(release)
			wp.Stop()
			rp.Close()
		})
	}
	t.Cleanup(stop)
	id := waitNewPool(t, spec.Addr, spec.Namespace, before, os.Getpid())
	return &LivePool{ID: id, Stop: stop}
}

// KilledPool is a pool whose process was killed with SIGKILL while its
// handlers were busy.
type KilledPool struct {
	ID  string
	PID int
	// InProgress is the length of each of its in-progress lists at the kill.
	InProgress map[string]int64
	// HeartbeatAt is its last heartbeat_at (unix seconds): with gocraft's
	// rule it is dead once Redis time reaches HeartbeatAt + 10 s.
	HeartbeatAt int64
}

// DeadAt is when the pool counts as dead with the given cut-off.
func (k *KilledPool) DeadAt(deadAfter time.Duration) time.Time {
	return time.Unix(k.HeartbeatAt, 0).Add(deadAfter)
}

// StartKilled enqueues the spec's jobs, starts a WorkerPool with handlers
// that never return in a child process (the test binary again, see
// MaybeRunChild), waits until the pool holds spec.InProgress jobs (default
// spec.ExpectedInProgress()), then kills the child with SIGKILL.
func StartKilled(t testing.TB, spec Spec) *KilledPool {
	t.Helper()
	for _, j := range spec.Jobs {
		if j.Enqueue > 0 {
			Enqueue(t, spec.Addr, spec.Namespace, j.Name, j.Enqueue)
		}
	}
	want := spec.InProgress
	if want == 0 {
		want = spec.ExpectedInProgress()
	}
	before := members(t, spec.Addr, spec.Namespace)
	// See the package doc: a live pool started earlier must not see this
	// pool's first heartbeat in the same whole second as its own start.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))

	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatalf("gcstate: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("gcstate: find the test binary: %v", err)
	}
	var out strings.Builder
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), ChildEnv+"="+string(b))
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("gcstate: start child pool: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	var once sync.Once
	kill := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-exited
		})
	}
	t.Cleanup(kill)
	pid := cmd.Process.Pid
	id := waitNewPoolOrExit(t, spec.Addr, spec.Namespace, before, pid, exited, &out)

	c := dial(t, spec.Addr)
	defer c.Close()
	counts := func() (map[string]int64, int64, error) {
		m := map[string]int64{}
		var total int64
		for _, j := range spec.Jobs {
			n, err := redis.Int64(c.Do("LLEN", inProgressKey(spec.Namespace, j.Name, id)))
			if err != nil {
				return nil, 0, err
			}
			if n > 0 {
				m[j.Name] = n
			}
			total += n
		}
		return m, total, nil
	}
	WaitFor(t, 20*time.Second, fmt.Sprintf("%d jobs in progress in pool %s", want, id), func() (bool, error) {
		select {
		case <-exited:
			return false, fmt.Errorf("child pool exited early: %s", out.String())
		default:
		}
		_, total, err := counts()
		return total >= int64(want), err
	})
	kill()
	m, _, err := counts()
	if err != nil {
		t.Fatalf("gcstate: %v", err)
	}
	hbAt, err := redis.Int64(c.Do("HGET", prefix(spec.Namespace)+"worker_pools:"+id, "heartbeat_at"))
	if err != nil {
		t.Fatalf("gcstate: read heartbeat of killed pool %s: %v", id, err)
	}
	return &KilledPool{ID: id, PID: pid, InProgress: m, HeartbeatAt: hbAt}
}

// MaybeRunChild turns the process into a killed-pool child when GCSTATE_CHILD
// is set: it starts the WorkerPool described there, with handlers that never
// return, and blocks until it is killed. Call it first thing in TestMain.
// Without the variable it returns at once.
func MaybeRunChild() {
	raw := os.Getenv(ChildEnv)
	if raw == "" {
		return
	}
	var spec Spec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintf(os.Stderr, "gcstate child: bad %s: %v\n", ChildEnv, err)
		os.Exit(1)
	}
	rp := newRedisPool(spec.Addr)
	never := make(chan struct{})
	wp := work.NewWorkerPool(gcContext{}, spec.concurrency(), spec.Namespace, rp)
	for _, j := range spec.Jobs {
		wp.JobWithOptions(j.Name, work.JobOptions{MaxConcurrency: j.MaxConcurrency}, func(*work.Job) error {
			<-never
			return nil
		})
	}
	wp.Start()
	for {
		time.Sleep(time.Hour)
	}
}

func prefix(ns string) string {
	if ns != "" && !strings.HasSuffix(ns, ":") {
		return ns + ":"
	}
	return ns
}

func inProgressKey(ns, job, poolID string) string {
	return prefix(ns) + "jobs:" + job + ":" + poolID + ":inprogress"
}

func dial(t testing.TB, addr string) redis.Conn {
	t.Helper()
	c, err := redis.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("gcstate: dial %s: %v", addr, err)
	}
	return c
}

func members(t testing.TB, addr, ns string) map[string]bool {
	t.Helper()
	c := dial(t, addr)
	defer c.Close()
	ids, err := redis.Strings(c.Do("SMEMBERS", prefix(ns)+"worker_pools"))
	if err != nil {
		t.Fatalf("gcstate: SMEMBERS worker_pools: %v", err)
	}
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func waitNewPool(t testing.TB, addr, ns string, before map[string]bool, pid int) string {
	t.Helper()
	return waitNewPoolOrExit(t, addr, ns, before, pid, nil, nil)
}

// waitNewPoolOrExit waits for a pool ID that was not in before and whose
// heartbeat carries pid.
func waitNewPoolOrExit(t testing.TB, addr, ns string, before map[string]bool, pid int, exited <-chan struct{}, out *strings.Builder) string {
	t.Helper()
	c := dial(t, addr)
	defer c.Close()
	var found string
	WaitFor(t, 20*time.Second, "the new pool's heartbeat", func() (bool, error) {
		if exited != nil {
			select {
			case <-exited:
				return false, fmt.Errorf("child pool exited early: %s", out.String())
			default:
			}
		}
		ids, err := redis.Strings(c.Do("SMEMBERS", prefix(ns)+"worker_pools"))
		if err != nil {
			return false, err
		}
		var cands []string
		for _, id := range ids {
			if before[id] {
				continue
			}
			p, err := redis.String(c.Do("HGET", prefix(ns)+"worker_pools:"+id, "pid"))
			if errors.Is(err, redis.ErrNil) {
				continue
			}
			if err != nil {
				return false, err
			}
			if p == strconv.Itoa(pid) {
				cands = append(cands, id)
			}
		}
		sort.Strings(cands)
		switch len(cands) {
		case 0:
			return false, nil
		case 1:
			found = cands[0]
			return true, nil
		default:
			return false, fmt.Errorf("several new pools with pid %d: %v (start pools one at a time)", pid, cands)
		}
	})
	return found
}
