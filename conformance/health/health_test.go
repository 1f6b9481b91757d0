// Package health_test checks workq-tui's job health findings against real
// gocraft/work v0.5.1 pools: a type failing now, a steady trickle of
// failures that is not an incident, a type starving behind stuck
// workers, a paused type with jobs waiting and a type no pool serves.
package health_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(redistest.Main(m))
}

type ctx struct{}

// snapshot runs `workq-tui snapshot` on the namespace with extra flags.
func snapshot(t *testing.T, bin, addr, ns string, extra ...string) (string, int) {
	t.Helper()
	args := append([]string{"--redis", addr, "-n", ns, "snapshot", "--wide"}, extra...)
	r := redistest.Run(t, bin, nil, args...)
	return r.Stdout + r.Stderr, r.Code
}

// explain runs `workq-tui explain job` on the namespace with extra flags.
func explain(t *testing.T, bin, addr, ns, job string, extra ...string) (string, int) {
	t.Helper()
	// --wide: each line whole, so that a phrase is matched across what the
	// 80-column text would wrap.
	args := append([]string{"--redis", addr, "-n", ns, "explain", "--wide", job}, extra...)
	r := redistest.Run(t, bin, nil, args...)
	return r.Stdout + r.Stderr, r.Code
}

// finding is the line of the findings naming kind and subject, "" when
// there is none.
func finding(out, kind, subject string) string {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == kind && f[1] == subject {
			return l
		}
	}
	return ""
}

// startPool starts a real WorkerPool; register adds its job types. It is
// stopped when the test ends.
func startPool(t *testing.T, addr, ns string, concurrency uint, register func(*work.WorkerPool)) {
	t.Helper()
	wp := work.NewWorkerPool(ctx{}, concurrency, ns, gcstate.RedisPool(t, addr))
	register(wp)
	wp.Start()
	t.Cleanup(wp.Stop)
}

const gatewayErr = "gateway timeout after 30s (HTTP 504)"

// failEvery fails every nth job it runs with gatewayErr (n = 5: 80%...),
// counting what ran.
type failEvery struct {
	n, ran, failed atomic.Int64
}

func (f *failEvery) handler(*work.Job) error {
	i := f.ran.Add(1)
	if f.n.Load() > 0 && i%f.n.Load() != 0 {
		return nil
	}
	f.failed.Add(1)
	return errors.New(gatewayErr)
}

func TestJobHealthAgainstRealPools(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, runs real pools")
	}
	bin := redistest.Binary(t)
	srv := redistest.Start(t)

	// A payments pool fails 80% of charge_card's jobs, about a hundred in
	// a few seconds (far above 30 a minute): snapshot names it failing
	// with its top error and exits 3; once the window has passed with no
	// more failures, it no longer does.
	t.Run("failing, then healthy once the window passes", func(t *testing.T) {
		t.Parallel()
		const ns = "conf-health-failing"
		fails := &failEvery{}
		startPool(t, srv.Addr(), ns, 10, func(wp *work.WorkerPool) {
			wp.JobWithOptions("charge_card", work.JobOptions{MaxFails: 1}, func(j *work.Job) error {
				if fails.ran.Add(1)%5 == 0 {
					return nil
				}
				fails.failed.Add(1)
				return errors.New(gatewayErr)
			})
		})
		gcstate.Enqueue(t, srv.Addr(), ns, "charge_card", 125)
		gcstate.WaitFor(t, 20*time.Second, "125 charge_card jobs run", func() (bool, error) { return fails.ran.Load() == 125, nil })
		flags := []string{"--fail-window", "15s"}
		out, code := snapshot(t, bin, srv.Addr(), ns, flags...)
		line := finding(out, "failing", "charge_card")
		if code != 3 || line == "" {
			t.Fatalf("snapshot: exit %d, no failing charge_card\n%s", code, out)
		}
		for _, want := range []string{"100 failures in the last 15s", "floor 5/min", "3 x the 1h00m before: 0/min", `100% "gateway timeout after Ns (HTTP N)"`} {
			if !strings.Contains(line, want) {
				t.Errorf("the finding lacks %q: %s", want, line)
			}
		}
		out, code = explain(t, bin, srv.Addr(), ns, "charge_card", flags...)
		if code != 3 || !strings.HasPrefix(out, "charge_card: charge_card is failing ") ||
			!strings.Contains(out, "fix: workq-tui --redis "+srv.Addr()+" --namespace "+ns+" jobs dead requeue --all --job charge_card") ||
			!strings.Contains(out, "run it once the error is fixed") {
			t.Errorf("explain: exit %d\n%s", code, out)
		}
		time.Sleep(16 * time.Second)
		out, code = snapshot(t, bin, srv.Addr(), ns, flags...)
		if code != 0 || finding(out, "failing", "charge_card") != "" {
			t.Errorf("after the window: exit %d\n%s", code, out)
		}
	})

	// A steady 4% of failures for the last hour (written as gocraft/work
	// writes deaths, at ten a minute) and a real pool failing 4% of its
	// jobs now at the same rate: above the floor, but no burst, so not
	// failing.
	t.Run("a steady failure rate is not failing", func(t *testing.T) {
		t.Parallel()
		const ns = "conf-health-steady"
		c := srv.Dial()
		defer c.Close()
		now := redistest.Time(t, c)
		for i := 0; i < 640; i++ { // 10 a minute, from 65m ago to 1m ago
			at := now.Add(-65*time.Minute + time.Duration(i)*6*time.Second)
			redistest.Do(t, c, "ZADD", ns+":dead", at.Unix(),
				fmt.Sprintf(`{"name":"charge_card","id":"h%04d","t":%d,"args":{},"fails":1,"err":%q,"failed_at":%d}`, i, at.Unix(), gatewayErr, at.Unix()))
		}
		f := &failEvery{}
		f.n.Store(25)
		startPool(t, srv.Addr(), ns, 10, func(wp *work.WorkerPool) {
			wp.JobWithOptions("charge_card", work.JobOptions{MaxFails: 1}, f.handler)
		})
		gcstate.Enqueue(t, srv.Addr(), ns, "charge_card", 250)
		gcstate.WaitFor(t, 20*time.Second, "250 charge_card jobs run", func() (bool, error) { return f.ran.Load() == 250, nil })
		out, code := snapshot(t, bin, srv.Addr(), ns)
		if code != 0 || finding(out, "failing", "charge_card") != "" {
			t.Errorf("a steady rate: exit %d\n%s", code, out)
		}
	})

	// send_sms's only pool has both its workers on export jobs that do
	// not end: send_sms is starving, naming what holds the slots, and the
	// export workers are stuck.
	t.Run("starving behind stuck workers", func(t *testing.T) {
		t.Parallel()
		const ns = "conf-health-starving"
		gate := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(gate) }) }
		gcstate.Enqueue(t, srv.Addr(), ns, "export", 2)
		startPool(t, srv.Addr(), ns, 2, func(wp *work.WorkerPool) {
			wp.Job("export", func(*work.Job) error { <-gate; return nil })
			wp.Job("send_sms", func(*work.Job) error { return nil })
		})
		t.Cleanup(release) // before the pool's Stop, which waits for the jobs
		c := srv.Dial()
		defer c.Close()
		gcstate.WaitFor(t, 10*time.Second, "both workers on export", func() (bool, error) {
			n, err := redis.Int(c.Do("GET", ns+":jobs:export:lock"))
			if errors.Is(err, redis.ErrNil) {
				return false, nil
			}
			return n == 2, err
		})
		gcstate.Enqueue(t, srv.Addr(), ns, "send_sms", 5)
		time.Sleep(3 * time.Second)
		out, code := snapshot(t, bin, srv.Addr(), ns, "--starve-after", "2s", "--long-after", "2s")
		line := finding(out, "starving", "send_sms")
		if code != 3 || line == "" || !strings.Contains(line, "every one of the 2 workers of its 1 live pool is busy") || !strings.Contains(line, "held by export x2 for") {
			t.Errorf("starving: exit %d\n%s", code, out)
		}
		if line := finding(out, "stuck", "export"); !strings.Contains(line, "2 workers busy with it") || !strings.Contains(line, "while send_sms waits") {
			t.Errorf("stuck\n%s", out)
		}
		out, code = explain(t, bin, srv.Addr(), ns, "export", "--long-after", "2s")
		if code != 3 || !strings.Contains(out, "2 workers stuck") || !strings.Contains(out, "restart the stuck pools' processes") {
			t.Errorf("explain export: exit %d\n%s", code, out)
		}
		out, code = explain(t, bin, srv.Addr(), ns, "send_sms", "--starve-after", "2s")
		if code != 3 || !strings.Contains(out, "every worker of the pools serving send_sms is busy with other job types") ||
			!strings.Contains(out, "export 2") {
			t.Errorf("explain send_sms: exit %d\n%s", code, out)
		}
		release()
		gcstate.WaitFor(t, 10*time.Second, "send_sms drained", func() (bool, error) {
			n, err := redis.Int(c.Do("LLEN", ns+":jobs:send_sms"))
			return n == 0, err
		})
		if out, code := snapshot(t, bin, srv.Addr(), ns, "--starve-after", "2s", "--long-after", "2s"); code != 0 {
			t.Errorf("once the workers are free: exit %d\n%s", code, out)
		}
	})

	// refund_card is paused with jobs waiting past the limit; orphan_job
	// has jobs and no live pool lists it.
	t.Run("paused backlog and unserved", func(t *testing.T) {
		t.Parallel()
		const ns = "conf-health-paused"
		c := srv.Dial()
		defer c.Close()
		redistest.Do(t, c, "SET", ns+":jobs:refund_card:paused", "1")
		startPool(t, srv.Addr(), ns, 2, func(wp *work.WorkerPool) {
			wp.Job("refund_card", func(*work.Job) error { return nil })
		})
		gcstate.Enqueue(t, srv.Addr(), ns, "refund_card", 85)
		gcstate.Enqueue(t, srv.Addr(), ns, "orphan_job", 3)
		time.Sleep(3 * time.Second)
		out, code := snapshot(t, bin, srv.Addr(), ns, "--paused-limit", "2s", "--starve-after", "2s")
		if code != 3 {
			t.Errorf("exit %d\n%s", code, out)
		}
		if line := finding(out, "paused_backlog", "refund_card"); !strings.Contains(line, "paused with 85 queued") || !strings.Contains(line, "(over 2s)") {
			t.Errorf("paused_backlog\n%s", out)
		}
		if line := finding(out, "unserved", "orphan_job"); !strings.Contains(line, "3 queued and no live pool lists it") {
			t.Errorf("unserved\n%s", out)
		}
		out, code = explain(t, bin, srv.Addr(), ns, "refund_card", "--paused-limit", "2s")
		if code != 3 || !strings.Contains(out, "paused with 85 queued") || !strings.Contains(out, "fix: workq-tui --redis "+srv.Addr()+" --namespace "+ns+" unpause refund_card") {
			t.Errorf("explain refund_card: exit %d\n%s", code, out)
		}
		out, code = explain(t, bin, srv.Addr(), ns, "orphan_job")
		if code != 3 || !strings.Contains(out, "no live pool serves orphan_job") {
			t.Errorf("explain orphan_job: exit %d\n%s", code, out)
		}
	})
}
