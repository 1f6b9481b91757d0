package snapshot_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// The workers of `snapshot --json`, as a consumer reads them.
type workersOutput struct {
	RedisTime int64 `json:"redis_time"`
	Workers   []struct {
		WorkerID       string          `json:"worker_id"`
		PoolID         string          `json:"pool_id"`
		Busy           bool            `json:"busy"`
		JobName        *string         `json:"job_name"`
		JobID          *string         `json:"job_id"`
		StartedAt      *int64          `json:"started_at"`
		RunningSeconds *float64        `json:"running_seconds"`
		Args           json.RawMessage `json:"args"`
		Checkin        *string         `json:"checkin"`
		CheckinAt      *int64          `json:"checkin_at"`
	} `json:"workers"`
	Findings []struct {
		Kind    string `json:"kind"`
		Subject string `json:"subject"`
	} `json:"findings"`
}

type workerCtx struct{}

// TestBusyWorkersMatchUpstream: a real gocraft/work v0.5.1 pool of 6
// workers runs 4 jobs whose handlers block (with args, without args, with
// escape sequences in args, and with a checkin); `snapshot --json` reports
// exactly the workers upstream's Client.WorkerObservations reports, busy
// and idle alike, with the same job names, IDs, start times, args and
// checkins. Once the jobs have run past --long-after 1s they are
// long_running findings, and the exit status stays 0.
func TestBusyWorkersMatchUpstream(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	const ns = "conf-workers"
	rp := gcstate.RedisPool(t, srv.Addr())
	enq := work.NewEnqueuer(ns, rp)
	for _, j := range []struct {
		name string
		args map[string]any
	}{
		{"email", map[string]any{"to": "ops@example.com", "n": 1, "tags": []string{"a", "b"}}},
		{"email", map[string]any{"to": "x<y>&z", "n": 2.5}},
		{"report", nil},
		{"resize", map[string]any{"path": "evil\x1b[31m\u202e.png"}},
	} {
		if _, err := enq.Enqueue(j.name, j.args); err != nil {
			t.Fatal(err)
		}
	}
	release := make(chan struct{})
	block := func(checkin string) func(*work.Job) error {
		return func(j *work.Job) error {
			if checkin != "" {
				j.Checkin(checkin)
			}
			<-release
			return nil
		}
	}
	wp := work.NewWorkerPool(workerCtx{}, 6, ns, rp)
	wp.Job("email", block(""))
	wp.Job("report", block("step 1 of 3\x1b[2J"))
	wp.Job("resize", block(""))
	wp.Start()
	releaseAll := sync.OnceFunc(func() { close(release) })
	t.Cleanup(func() { releaseAll(); wp.Stop() })

	client := work.NewClient(ns, rp)
	var obs []*work.WorkerObservation
	gcstate.WaitFor(t, 15*time.Second, "4 busy workers, the report job checked in", func() (bool, error) {
		var err error
		obs, err = client.WorkerObservations()
		if err != nil {
			return false, err
		}
		busy, checkedIn := 0, false
		for _, o := range obs {
			if o.IsBusy {
				busy++
				checkedIn = checkedIn || (o.JobName == "report" && o.Checkin != "")
			}
		}
		return busy == 4 && checkedIn, nil
	})

	out, code := runWorkers(t, srv.Addr(), ns)
	if code != 0 {
		t.Errorf("exit %d with a live pool and nothing wrong", code)
	}
	if got, want := describeOurs(t, out), describeUpstream(t, obs); got != want {
		t.Errorf("snapshot --json workers:\n%s\nupstream WorkerObservations:\n%s", got, want)
	}
	for _, f := range out.Findings {
		if f.Kind == "long_running" {
			t.Errorf("long_running %s under the default --long-after 10m", f.Subject)
		}
	}

	// Past --long-after 1s (started_at is whole seconds: wait for Redis's
	// clock to be 2 s past the latest start).
	var latest int64
	for _, o := range obs {
		latest = max(latest, o.StartedAt)
	}
	c := srv.Dial()
	gcstate.WaitFor(t, 10*time.Second, "the jobs to run 2 s", func() (bool, error) {
		tm, err := redis.Int64s(c.Do("TIME"))
		return err == nil && tm[0] >= latest+2, err
	})
	out, code = runWorkers(t, srv.Addr(), ns, "--long-after", "1s")
	if code != 0 {
		t.Errorf("exit %d: long-running jobs alone changed the exit status", code)
	}
	var long, busy []string
	for _, f := range out.Findings {
		if f.Kind == "long_running" {
			long = append(long, f.Subject)
		}
	}
	for _, w := range out.Workers {
		if w.Busy {
			busy = append(busy, w.WorkerID)
			if w.RunningSeconds == nil || *w.RunningSeconds < 1 {
				t.Errorf("worker %s running_seconds %v", w.WorkerID, w.RunningSeconds)
			}
		}
	}
	sort.Strings(long)
	sort.Strings(busy)
	if len(busy) != 4 || strings.Join(long, ",") != strings.Join(busy, ",") {
		t.Errorf("long_running %v, want every busy worker %v", long, busy)
	}

	// Once the handlers return, every worker is idle again, as upstream
	// sees it too.
	releaseAll()
	gcstate.WaitFor(t, 15*time.Second, "every worker idle", func() (bool, error) {
		obs, err := client.WorkerObservations()
		for _, o := range obs {
			if o.IsBusy {
				return false, err
			}
		}
		return len(obs) == 6, err
	})
	out, _ = runWorkers(t, srv.Addr(), ns)
	if got, want := describeOurs(t, out), describeUpstream(t, obsNow(t, client)); got != want || strings.Contains(got, "busy") {
		t.Errorf("after the jobs ended:\n%s\nupstream:\n%s", got, want)
	}
}

func obsNow(t *testing.T, c *work.Client) []*work.WorkerObservation {
	t.Helper()
	obs, err := c.WorkerObservations()
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

func runWorkers(t *testing.T, addr, ns string, extra ...string) (*workersOutput, int) {
	t.Helper()
	args := append([]string{"--redis", addr, "-n", ns, "--read-only", "snapshot", "--json"}, extra...)
	r := redistest.Run(t, redistest.Binary(t), nil, args...)
	if r.Code != 0 && r.Code != 3 {
		t.Fatalf("workq-tui %v: exit %d: %s", args, r.Code, r.Stderr)
	}
	if strings.ContainsAny(r.Stdout, "\x1b\u202e") {
		t.Errorf("an escape or bidi override reached the JSON raw:\n%s", r.Stdout)
	}
	var out workersOutput
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("workq-tui %v: not JSON (%v):\n%s", args, err, r.Stdout)
	}
	return &out, r.Code
}

// describeOurs and describeUpstream write each worker the same way, sorted
// by worker ID: idle, or busy with job name, ID, started_at, the args as
// compact JSON (null for none) and the checkin with its time.
func describeOurs(t *testing.T, out *workersOutput) string {
	t.Helper()
	var lines []string
	for _, w := range out.Workers {
		if !w.Busy {
			if w.JobName != nil || w.JobID != nil || w.StartedAt != nil || w.RunningSeconds != nil || string(w.Args) != "null" || w.Checkin != nil || w.CheckinAt != nil {
				t.Errorf("idle worker %s has values: %+v", w.WorkerID, w)
			}
			lines = append(lines, w.WorkerID+" idle")
			continue
		}
		args := compact(t, w.Args)
		checkin := "-"
		if w.Checkin != nil && w.CheckinAt != nil {
			checkin = fmt.Sprintf("%q@%d", *w.Checkin, *w.CheckinAt)
		}
		lines = append(lines, fmt.Sprintf("%s busy %s %s %d %s %s", w.WorkerID, deref(w.JobName), deref(w.JobID), derefInt(w.StartedAt), args, checkin))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func describeUpstream(t *testing.T, obs []*work.WorkerObservation) string {
	t.Helper()
	var lines []string
	for _, o := range obs {
		if !o.IsBusy {
			lines = append(lines, o.WorkerID+" idle")
			continue
		}
		args := "null"
		if o.ArgsJSON != "" {
			args = compact(t, json.RawMessage(o.ArgsJSON))
		}
		checkin := "-"
		if o.Checkin != "" {
			checkin = fmt.Sprintf("%q@%d", o.Checkin, o.CheckinAt)
		}
		lines = append(lines, fmt.Sprintf("%s busy %s %s %d %s %s", o.WorkerID, o.JobName, o.JobID, o.StartedAt, args, checkin))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// compact is the JSON value of raw written one way (keys sorted, the same
// escapes), so that two encodings of one value compare equal.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("args %q: %v", raw, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func derefInt(i *int64) int64 {
	if i == nil {
		return -1
	}
	return *i
}

// TestKilledPoolWorkers: a pool killed hard in the middle of its jobs
// leaves its workers' observations behind; once the pool is dead the
// snapshot still lists its workers under that pool, busy or idle exactly as
// upstream's WorkerObservations sees them. (gocraft/work writes an
// observation on its observer's 1 s tick, so a pool killed within a second
// of taking its jobs may have written none: how many are busy is not
// fixed.)
func TestKilledPoolWorkers(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	const ns = "conf-killed-workers"
	k := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 3,
		Jobs: []gcstate.JobType{{Name: "stuck", Enqueue: 2}}})
	client := work.NewClient(ns, gcstate.RedisPool(t, srv.Addr()))
	var out *workersOutput
	gcstate.WaitFor(t, 20*time.Second, "the killed pool dead with --dead-after 1s", func() (bool, error) {
		var code int
		out, code = runWorkers(t, srv.Addr(), ns, "--dead-after", "1s")
		return code == 3, nil
	})
	if got, want := describeOurs(t, out), describeUpstream(t, obsNow(t, client)); got != want {
		t.Errorf("snapshot --json workers:\n%s\nupstream WorkerObservations:\n%s", got, want)
	}
	busy := 0
	for _, w := range out.Workers {
		if w.PoolID != k.ID {
			t.Errorf("worker %s of pool %s, want the killed pool %s", w.WorkerID, w.PoolID, k.ID)
		}
		if w.Busy {
			busy++
			if deref(w.JobName) != "stuck" {
				t.Errorf("busy worker %s runs %q", w.WorkerID, deref(w.JobName))
			}
		}
	}
	if len(out.Workers) != 3 || busy > 2 {
		t.Errorf("%d workers, %d busy; the killed pool had 3 workers and held 2 jobs", len(out.Workers), busy)
	}
	t.Logf("%d of the killed pool's workers left an observation", busy)
}
