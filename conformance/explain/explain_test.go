// Package explain_test checks `workq-tui explain` against state written by
// the real gocraft/work v0.5.1: each cause is named first with the command
// that fixes it, and once that command ran the job type is explained as
// running.
package explain_test

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(redistest.Main(m))
}

type ctx struct{}

// explain runs `workq-tui explain` and returns its first line, the whole
// output and the exit status.
func explain(t *testing.T, bin, addr, ns, job string) (string, string, int) {
	t.Helper()
	r := redistest.Run(t, bin, nil, "--redis", addr, "-n", ns, "explain", job)
	first, _, _ := strings.Cut(r.Stdout, "\n")
	return first, r.Stdout, r.Code
}

func TestExplainNamesTheCauseAndItsFix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := redistest.Binary(t)
	srv := redistest.Start(t)
	rp := gcstate.RedisPool(t, srv.Addr())
	const ns = "conf-explain"
	keys := redisq.NewKeys(ns)
	c := srv.Dial()
	defer c.Close()

	// A real pool serving "mail" (which fails once, then succeeds) and
	// "report".
	var mu sync.Mutex
	failed := map[string]bool{}
	pool := work.NewWorkerPool(ctx{}, 2, ns, rp)
	pool.JobWithOptions("mail", work.JobOptions{MaxFails: 3, Backoff: func(*work.Job) int64 { return 3600 }},
		func(j *work.Job) error {
			mu.Lock()
			defer mu.Unlock()
			if !failed[j.ID] {
				failed[j.ID] = true
				return errors.New("smtp refused")
			}
			return nil
		})
	pool.Job("report", func(*work.Job) error { return nil })
	pool.Start()
	defer pool.Stop()
	enq := work.NewEnqueuer(ns, rp)

	// Paused: the key set as the README tells users to.
	if _, err := c.Do("SET", keys.Paused("report"), "1"); err != nil {
		t.Fatal(err)
	}
	if _, err := enq.Enqueue("report", nil); err != nil {
		t.Fatal(err)
	}
	gcstate.WaitFor(t, 10*time.Second, "the pool's heartbeat", func() (bool, error) {
		n, err := c.Do("EXISTS", keys.Heartbeat(poolID(t, c, keys)))
		return n == int64(1), err
	})
	first, out, code := explain(t, bin, srv.Addr(), ns, "report")
	fix := "workq-tui --redis " + srv.Addr() + " --namespace " + ns + " unpause report"
	if code != 3 || first != "report: report is paused" || !strings.Contains(out, "fix: "+fix) {
		t.Fatalf("paused: exit %d\n%s", code, out)
	}
	if r := redistest.Run(t, bin, nil, "--redis", srv.Addr(), "--namespace", ns, "unpause", "report", "--yes"); r.Code != 0 {
		t.Fatalf("unpause: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	gcstate.WaitFor(t, 10*time.Second, "report runs", func() (bool, error) {
		_, _, code := explain(t, bin, srv.Addr(), ns, "report")
		n, err := c.Do("LLEN", keys.Queue("report"))
		return code == 0 && n == int64(0), err
	})

	// Waiting in retry: mail failed once and waits an hour.
	if _, err := enq.Enqueue("mail", work.Q{"to": "a@example.com"}); err != nil {
		t.Fatal(err)
	}
	gcstate.WaitFor(t, 10*time.Second, "mail in retry", func() (bool, error) {
		n, err := c.Do("ZCARD", keys.Retry())
		return n == int64(1), err
	})
	first, out, code = explain(t, bin, srv.Addr(), ns, "mail")
	fix = "workq-tui --redis " + srv.Addr() + " --namespace " + ns + " jobs retry requeue --all --job mail"
	if code != 3 || !strings.HasPrefix(first, "mail: mail's queue is empty while 1 job wait in retry") || !strings.Contains(out, "fix: "+fix) {
		t.Fatalf("retry: exit %d\n%s", code, out)
	}
	if r := redistest.Run(t, bin, nil, "--redis", srv.Addr(), "--namespace", ns, "jobs", "retry", "requeue", "--all", "--job", "mail", "--yes"); r.Code != 0 {
		t.Fatalf("requeue: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	gcstate.WaitFor(t, 10*time.Second, "mail runs", func() (bool, error) {
		_, _, code := explain(t, bin, srv.Addr(), ns, "mail")
		n, err := c.Do("ZCARD", keys.Retry())
		return code == 0 && n == int64(0), err
	})

	// No live pool: a job type no pool registers, enqueued anyway.
	if _, err := enq.Enqueue("resize", nil); err != nil {
		t.Fatal(err)
	}
	first, out, code = explain(t, bin, srv.Addr(), ns, "resize")
	if code != 3 || first != "resize: no live pool serves resize" || !strings.Contains(out, "start a worker pool that registers resize") {
		t.Fatalf("no live pool: exit %d\n%s", code, out)
	}
	// The fix: a pool that registers it.
	resize := work.NewWorkerPool(ctx{}, 1, ns, rp)
	resize.Job("resize", func(*work.Job) error { return nil })
	resize.Start()
	defer resize.Stop()
	gcstate.WaitFor(t, 10*time.Second, "resize runs", func() (bool, error) {
		_, _, code := explain(t, bin, srv.Addr(), ns, "resize")
		n, err := c.Do("LLEN", keys.Queue("resize"))
		return code == 0 && n == int64(0), err
	})
}

// poolID is the one pool ID of the namespace's pool set, once there.
func poolID(t *testing.T, c interface {
	Do(string, ...any) (any, error)
}, keys redisq.Keys) string {
	t.Helper()
	var id string
	gcstate.WaitFor(t, 10*time.Second, "a pool in worker_pools", func() (bool, error) {
		v, err := c.Do("SRANDMEMBER", keys.WorkerPools())
		if b, ok := v.([]byte); ok {
			id = string(b)
		}
		return id != "", err
	})
	return id
}
