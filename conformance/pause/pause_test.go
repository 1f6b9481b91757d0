// Package pause_test checks pausing, unpausing and the queue's run order
// against real gocraft/work v0.5.1 worker pools.
package pause_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

type jobCtx struct{}

// starts records, in order, every job a pool's handlers start.
type starts struct {
	mu  sync.Mutex
	ids map[string][]string // job name -> job IDs in start order
}

func (s *starts) add(j *work.Job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids[j.Name] = append(s.ids[j.Name], j.ID)
}

func (s *starts) of(name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ids[name]...)
}

// startPool starts a gocraft/work pool whose handlers record their start
// and run for hold; it is stopped when the test ends.
func startPool(t *testing.T, rp *redis.Pool, ns string, concurrency uint, hold time.Duration, names ...string) *starts {
	t.Helper()
	st := &starts{ids: map[string][]string{}}
	wp := work.NewWorkerPool(jobCtx{}, concurrency, ns, rp)
	for _, n := range names {
		wp.Job(n, func(j *work.Job) error {
			st.add(j)
			time.Sleep(hold)
			return nil
		})
	}
	wp.Start()
	t.Cleanup(wp.Stop)
	return st
}

func llen(t *testing.T, c redis.Conn, key string) int64 {
	t.Helper()
	n, err := redis.Int64(c.Do("LLEN", key))
	if err != nil {
		t.Fatalf("LLEN %s: %v", key, err)
	}
	return n
}

// inProgress is the total length of a job type's in-progress lists.
func inProgress(t *testing.T, c redis.Conn, keys redisq.Keys, job string) int64 {
	t.Helper()
	ids, err := redis.Strings(c.Do("SMEMBERS", keys.WorkerPools()))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, id := range ids {
		n += llen(t, c, keys.InProgress(job, id))
	}
	return n
}

// pauseWith plans from a fresh snapshot and runs the plan, as the command
// line and the screen do.
func pauseWith(t *testing.T, rp *redis.Pool, ns, job string, pause bool) reaper.PauseResult {
	t.Helper()
	ctx := context.Background()
	snap, err := redisq.NewClient(rp, ns, 0).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reaper.NewPausePlan(snap, []string{job}, pause, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := reaper.NewPauser(rp).Pause(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// stream enqueues one job of "steady" and one of "other" every 20 ms with
// gocraft/work's Enqueuer until stopped (at the latest when the test ends),
// and notes when each steady job's enqueue was called.
type stream struct {
	mu   sync.Mutex
	ids  []string
	at   []time.Time
	stop func()
}

func startStream(t *testing.T, rp *redis.Pool, ns string) *stream {
	s := &stream{}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		enq := work.NewEnqueuer(ns, rp)
		for i := 0; ; i++ {
			select {
			case <-quit:
				return
			case <-time.After(20 * time.Millisecond):
			}
			start := time.Now()
			j, err := enq.Enqueue("steady", work.Q{"i": i})
			if err != nil {
				t.Errorf("enqueue: %v", err)
				return
			}
			if _, err := enq.Enqueue("other", work.Q{"i": i}); err != nil {
				t.Errorf("enqueue: %v", err)
				return
			}
			s.mu.Lock()
			s.ids = append(s.ids, j.ID)
			s.at = append(s.at, start)
			s.mu.Unlock()
		}
	}()
	s.stop = sync.OnceFunc(func() { close(quit); <-done })
	t.Cleanup(s.stop)
	return s
}

// since is the steady jobs whose enqueue was called after t: when t is
// after a write returned, they were pushed after it.
func (s *stream) since(t time.Time) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, at := range s.at {
		if at.After(t) {
			out = append(out, s.ids[i])
		}
	}
	return out
}

// TestPauseStopsOneJobType: a live pool processes a steady stream of two
// job types. After the pause of one, only the jobs it had already taken
// run; then none of that type starts, none shows in the pool's worker
// observations and its queue only grows, while the other type goes on.
// After the unpause the pool drains the queue.
func TestPauseStopsOneJobType(t *testing.T) {
	checkPauseStopsOneJobType(t, "conf-pause", func(_ *redistest.Server, rp *redis.Pool, ns string, pause bool) {
		res := pauseWith(t, rp, ns, "steady", pause)
		want := reaper.PauseDone
		if !pause {
			want = reaper.UnpauseDone
		}
		if res.Changed() != 1 || res.Jobs[0].Status != want {
			t.Fatalf("pause %v: %+v", pause, res)
		}
	})
}

// setPause pauses (pause true) or unpauses steady in namespace ns, and
// checks that it says it did.
type setPause func(srv *redistest.Server, rp *redis.Pool, ns string, pause bool)

// checkPauseStopsOneJobType is TestPauseStopsOneJobType with the pause and
// the unpause done by set.
func checkPauseStopsOneJobType(t *testing.T, ns string, set setPause) {
	srv := redistest.Start(t)
	const concurrency = 6
	keys := redisq.NewKeys(ns)
	rp := gcstate.RedisPool(t, srv.Addr())
	c := srv.Dial()
	defer c.Close()

	stream := startStream(t, rp, ns)
	st := startPool(t, rp, ns, concurrency, 30*time.Millisecond, "steady", "other")
	gcstate.WaitFor(t, 10*time.Second, "20 steady jobs run", func() (bool, error) { return len(st.of("steady")) >= 20, nil })

	set(srv, rp, ns, true)
	pausedAt := time.Now()
	if v, err := redis.String(c.Do("GET", keys.Paused("steady"))); err != nil || v != "1" {
		t.Fatalf("pause key: %q, %v", v, err)
	}
	startedAtPause := len(st.of("steady"))

	// The jobs taken before the pause end.
	gcstate.WaitFor(t, 5*time.Second, "steady's in-progress jobs end", func() (bool, error) {
		return inProgress(t, c, keys, "steady") == 0, nil
	})
	ended := len(st.of("steady"))
	if ended-startedAtPause > concurrency {
		t.Errorf("%d steady jobs started after the pause, more than the %d workers could have taken before it", ended-startedAtPause, concurrency)
	}

	// Observations lag up to a second behind the handlers.
	time.Sleep(1200 * time.Millisecond)
	obsClient := work.NewClient(ns, rp)
	otherBefore := len(st.of("other"))
	last := llen(t, c, keys.Queue("steady"))
	first := last
	watchEnd := time.Now().Add(3 * time.Second)
	var samples, busyOther int
	for time.Now().Before(watchEnd) {
		obs, err := obsClient.WorkerObservations()
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range obs {
			if o.IsBusy && o.JobName == "steady" {
				t.Errorf("worker %s shows steady job %s while paused", o.WorkerID, o.JobID)
			}
			if o.IsBusy && o.JobName == "other" {
				busyOther++
			}
		}
		n := llen(t, c, keys.Queue("steady"))
		if n < last {
			t.Errorf("the paused queue shrank from %d to %d", last, n)
		}
		last = n
		samples++
		time.Sleep(100 * time.Millisecond)
	}
	if got := len(st.of("steady")); got != ended {
		t.Errorf("%d steady jobs started while paused", got-ended)
	}
	if last <= first {
		t.Errorf("the paused queue did not grow: %d then %d", first, last)
	}
	if got := len(st.of("other")); got <= otherBefore+50 {
		t.Errorf("other did not go on: %d jobs in 3 s", got-otherBefore)
	}
	late := map[string]bool{}
	for _, id := range stream.since(pausedAt) {
		late[id] = true
	}
	for _, id := range st.of("steady") {
		if late[id] {
			t.Errorf("steady job %s, enqueued after the pause, ran while paused", id)
		}
	}
	t.Logf("paused: %d steady jobs finished after the pause, queue %d -> %d, %d other jobs ran, %d observation samples (%d busy with other)",
		ended-startedAtPause, first, last, len(st.of("other"))-otherBefore, samples, busyOther)

	// Unpause: the pool drains what queued up, new jobs included. Idle
	// gocraft workers back off up to 5 s between polls.
	stream.stop()
	set(srv, rp, ns, false)
	if n, _ := redis.Int(c.Do("EXISTS", keys.Paused("steady"))); n != 0 {
		t.Fatal("pause key left after unpause")
	}
	unpausedAt := time.Now()
	total := len(stream.since(time.Time{}))
	gcstate.WaitFor(t, 20*time.Second, "the steady queue drains", func() (bool, error) {
		return llen(t, c, keys.Queue("steady")) == 0 && len(st.of("steady")) == total, nil
	})
	t.Logf("unpaused: %d queued steady jobs ran in %s", total-ended, time.Since(unpausedAt).Round(10*time.Millisecond))
}

// TestQueuePagesInRunOrder: the pages of a queue, read before any pool
// runs, list the jobs in the order a gocraft/work pool with one worker then
// runs them.
func TestQueuePagesInRunOrder(t *testing.T) {
	srv := redistest.Start(t)
	const ns = "conf-queue-order"
	rp := gcstate.RedisPool(t, srv.Addr())
	enq := work.NewEnqueuer(ns, rp)
	const n = 47
	for i := 0; i < n; i++ {
		if _, err := enq.Enqueue("ordered", work.Q{"i": i, "s": fmt.Sprintf("job %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	cl := redisq.NewClient(rp, ns, 0)
	var listed []string
	pages := 0
	for offset := 0; ; offset += 10 {
		page, err := cl.QueuePage(context.Background(), "ordered", offset, 10)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if page.Length != n {
			t.Errorf("page at %d: length %d", offset, page.Length)
		}
		for _, j := range page.Jobs {
			if j.ParseErr != nil || j.Name != "ordered" || !strings.Contains(string(j.Args), fmt.Sprintf(`"i":%d`, len(listed))) {
				t.Errorf("job #%d: %+v (args %s)", len(listed), j.Job, j.Args)
			}
			listed = append(listed, j.ID)
		}
		if len(page.Jobs) < 10 {
			break
		}
	}
	if len(listed) != n || pages != 5 {
		t.Fatalf("%d jobs over %d pages", len(listed), pages)
	}

	st := startPool(t, rp, ns, 1, 0, "ordered")
	gcstate.WaitFor(t, 20*time.Second, "the pool runs every job", func() (bool, error) { return len(st.of("ordered")) == n, nil })
	ran := st.of("ordered")
	if strings.Join(ran, ",") != strings.Join(listed, ",") {
		t.Errorf("run order differs from the pages:\npages %v\nran   %v", listed, ran)
	}
}
