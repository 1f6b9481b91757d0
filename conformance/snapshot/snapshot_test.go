// Package snapshot_test checks the snapshot against the real gocraft/work
// v0.5.1: with live pools and pools killed hard, the built
// `workq-tui snapshot --json` reports every pool with the right status,
// in-progress counts, lock and lock_info, and exits 3.
package snapshot_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(redistest.Main(m))
}

// The JSON of `snapshot --json`, as a consumer reads it.
type snapshot struct {
	Namespace string `json:"namespace"`
	RedisTime int64  `json:"redis_time"`
	Pools     []struct {
		ID        string `json:"id"`
		Status    string `json:"status"`
		Heartbeat *struct {
			HeartbeatAt *int64   `json:"heartbeat_at"`
			StartedAt   int64    `json:"started_at"`
			Host        string   `json:"host"`
			PID         int      `json:"pid"`
			Concurrency int      `json:"concurrency"`
			JobNames    []string `json:"job_names"`
			WorkerIDs   []string `json:"worker_ids"`
		} `json:"heartbeat"`
		HeartbeatAgeSeconds *float64         `json:"heartbeat_age_seconds"`
		InProgress          map[string]int64 `json:"in_progress"`
		LockInfo            map[string]int64 `json:"lock_info"`
	} `json:"pools"`
	JobTypes []struct {
		Name           string   `json:"name"`
		Queued         int64    `json:"queued"`
		LatencySeconds *float64 `json:"latency_seconds"`
		InProgress     int64    `json:"in_progress"`
		Lock           int64    `json:"lock"`
		LockInfoTotal  int64    `json:"lock_info_total"`
		MaxConcurrency int64    `json:"max_concurrency"`
		Paused         bool     `json:"paused"`
		Drift          bool     `json:"drift"`
	} `json:"job_types"`
	Orphans  []json.RawMessage `json:"orphans"`
	Findings []struct {
		Kind    string `json:"kind"`
		Subject string `json:"subject"`
		Detail  string `json:"detail"`
	} `json:"findings"`
}

func (s *snapshot) status(id string) string {
	for _, p := range s.Pools {
		if p.ID == id {
			return p.Status
		}
	}
	return "missing"
}

// run runs the binary's snapshot --json and returns the parsed output and
// the exit code.
func run(t *testing.T, addr, ns string, extra ...string) (*snapshot, int) {
	t.Helper()
	args := append([]string{"--redis", addr, "-n", ns, "--read-only"}, extra...)
	args = append(args, "snapshot", "--json")
	r := redistest.Run(t, redistest.Binary(t), nil, args...)
	if r.Code != 0 && r.Code != 3 {
		t.Fatalf("workq-tui %v: exit %d: %s", args, r.Code, r.Stderr)
	}
	var s snapshot
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("workq-tui %v: not JSON (%v):\n%s", args, err, r.Stdout)
	}
	return &s, r.Code
}

func llen(t *testing.T, c redis.Conn, key string) int64 {
	t.Helper()
	n, err := redis.Int64(c.Do("LLEN", key))
	if err != nil {
		t.Fatalf("LLEN %s: %v", key, err)
	}
	return n
}

// TestLiveAndKilledPools: a live pool holding two jobs and a pool killed with
// four jobs in progress (one of them of a type capped at max_concurrency 1).
// Right after the kill both are reported alive and nothing is wrong (exit
// 0); once the killed pool's last heartbeat is 10 s old (the default
// cut-off, upstream's), polling the binary reports it dead with its jobs,
// locks and lock_info, the live pool still alive, and exit 3.
func TestLiveAndKilledPools(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "conf-snap"
	host, _ := os.Hostname()

	live := gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 3, Block: true,
		Jobs: []gcstate.JobType{{Name: "mail", Enqueue: 2}}})
	gcstate.WaitFor(t, 10*time.Second, "the live pool to hold 2 jobs", func() (bool, error) {
		return llen(t, c, ns+":jobs:mail:"+live.ID+":inprogress") == 2, nil
	})
	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 4,
		Jobs: []gcstate.JobType{{Name: "crunch", Enqueue: 3}, {Name: "report:pdf", MaxConcurrency: 1, Enqueue: 2}}})
	if want := map[string]int64{"crunch": 3, "report:pdf": 1}; !reflect.DeepEqual(killed.InProgress, want) {
		t.Fatalf("killed pool holds %v, want %v", killed.InProgress, want)
	}

	// Just killed: not dead yet (when the check runs in time).
	s, code := run(t, srv.Addr(), ns)
	if s.RedisTime-killed.HeartbeatAt < 8 {
		if st := s.status(killed.ID); st == "dead" || code != 0 {
			t.Errorf("%d s after its last beat the killed pool is %s, exit %d; want not dead, exit 0", s.RedisTime-killed.HeartbeatAt, st, code)
		}
	}

	// Poll until it is dead, as a monitor would.
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, code = run(t, srv.Addr(), ns)
		if s.status(killed.ID) == "dead" && s.status(live.ID) == "alive" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("killed pool %s, live pool %s after 30 s", s.status(killed.ID), s.status(live.ID))
		}
		time.Sleep(500 * time.Millisecond)
	}
	if got := s.RedisTime - killed.HeartbeatAt; got < 10 {
		t.Errorf("dead after %d s, want at least 10 s (the default cut-off)", got)
	}
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	if s.Namespace != ns || len(s.Pools) != 2 || s.Orphans == nil || len(s.Orphans) != 0 {
		t.Errorf("namespace %q, %d pools, orphans %v", s.Namespace, len(s.Pools), s.Orphans)
	}
	for _, p := range s.Pools {
		var want map[string]int64
		var hbWant struct {
			pid, conc int
			jobs      []string
		}
		switch p.ID {
		case killed.ID:
			want = map[string]int64{"crunch": 3, "report:pdf": 1}
			hbWant.pid, hbWant.conc, hbWant.jobs = killed.PID, 4, []string{"crunch", "report:pdf"}
		case live.ID:
			want = map[string]int64{"mail": 2}
			hbWant.pid, hbWant.conc, hbWant.jobs = os.Getpid(), 3, []string{"mail"}
		default:
			t.Errorf("unexpected pool %s", p.ID)
			continue
		}
		if !reflect.DeepEqual(p.InProgress, want) || !reflect.DeepEqual(p.LockInfo, want) {
			t.Errorf("pool %s: in progress %v, lock_info %v, want %v", p.ID, p.InProgress, p.LockInfo, want)
		}
		hb := p.Heartbeat
		if hb == nil || hb.HeartbeatAt == nil || hb.Host != host || hb.PID != hbWant.pid || hb.Concurrency != hbWant.conc ||
			!reflect.DeepEqual(hb.JobNames, hbWant.jobs) || len(hb.WorkerIDs) != hbWant.conc || hb.StartedAt == 0 {
			t.Errorf("pool %s heartbeat %+v", p.ID, hb)
		}
		if p.HeartbeatAgeSeconds == nil {
			t.Errorf("pool %s: no heartbeat age", p.ID)
		}
	}
	type jt struct{ queued, inProgress, lock, lockInfo, max int64 }
	want := map[string]jt{
		"mail":       {0, 2, 2, 2, 0},
		"crunch":     {0, 3, 3, 3, 0},
		"report:pdf": {1, 1, 1, 1, 1},
	}
	if len(s.JobTypes) != len(want) {
		t.Errorf("%d job types, want %d", len(s.JobTypes), len(want))
	}
	for _, j := range s.JobTypes {
		got := jt{j.Queued, j.InProgress, j.Lock, j.LockInfoTotal, j.MaxConcurrency}
		if got != want[j.Name] || j.Drift || j.Paused {
			t.Errorf("job type %s: %+v drift %v, want %+v", j.Name, got, j.Drift, want[j.Name])
		}
		if (j.Queued > 0) != (j.LatencySeconds != nil) {
			t.Errorf("job type %s: queued %d, latency %v", j.Name, j.Queued, j.LatencySeconds)
		}
	}
	var findings []string
	for _, f := range s.Findings {
		findings = append(findings, f.Kind+" "+f.Subject)
	}
	if wantF := []string{"dead_pool " + killed.ID}; !reflect.DeepEqual(findings, wantF) {
		t.Errorf("findings %v, want %v", findings, wantF)
	}
}

// TestKilledPoolsShortCutOff: two pools killed hard and one stopped cleanly
// (gocraft/work leaves lock_info 0 behind, which is no finding); with
// --dead-after 1s both killed pools are dead as soon as their last beat is
// 1 s old, and the counts match what gocraft/work left.
func TestKilledPoolsShortCutOff(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "conf-short"

	stopped := gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: "quick", Enqueue: 4}}})
	gcstate.WaitFor(t, 10*time.Second, "the quick jobs to finish", func() (bool, error) {
		return llen(t, c, ns+":jobs:quick") == 0 && llen(t, c, ns+":jobs:quick:"+stopped.ID+":inprogress") == 0, nil
	})
	stopped.Stop()
	k1 := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: "a", Enqueue: 2}}})
	k2 := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 5,
		Jobs: []gcstate.JobType{{Name: "b", Enqueue: 3}, {Name: "c", MaxConcurrency: 2, Enqueue: 4}}})

	latest := k1.HeartbeatAt
	if k2.HeartbeatAt > latest {
		latest = k2.HeartbeatAt
	}
	var s *snapshot
	var code int
	gcstate.WaitFor(t, 20*time.Second, "both killed pools dead with --dead-after 1s", func() (bool, error) {
		s, code = run(t, srv.Addr(), ns, "--dead-after", "1s")
		return s.status(k1.ID) == "dead" && s.status(k2.ID) == "dead", nil
	})
	if s.RedisTime < latest+1 {
		t.Errorf("dead at redis time %d, last beat %d", s.RedisTime, latest)
	}
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	if len(s.Pools) != 2 {
		t.Errorf("%d pools, want 2 (the stopped one left the set)", len(s.Pools))
	}
	for _, p := range s.Pools {
		want := k1.InProgress
		if p.ID == k2.ID {
			want = k2.InProgress
		}
		if !reflect.DeepEqual(p.InProgress, want) || !reflect.DeepEqual(p.LockInfo, want) {
			t.Errorf("pool %s: in progress %v, lock_info %v, want %v", p.ID, p.InProgress, p.LockInfo, want)
		}
	}
	if !reflect.DeepEqual(k2.InProgress, map[string]int64{"b": 3, "c": 2}) || !reflect.DeepEqual(k1.InProgress, map[string]int64{"a": 2}) {
		t.Errorf("killed pools hold %v and %v", k1.InProgress, k2.InProgress)
	}
	li, err := redis.StringMap(c.Do("HGETALL", ns+":jobs:quick:lock_info"))
	if err != nil || li[stopped.ID] != "0" {
		t.Fatalf("gocraft/work did not leave lock_info 0 behind: %v %v", li, err)
	}
	var findings []string
	for _, f := range s.Findings {
		findings = append(findings, f.Kind)
		if f.Kind != "dead_pool" {
			t.Errorf("unexpected finding %+v", f)
		}
	}
	if len(findings) != 2 {
		t.Errorf("findings %v, want two dead pools", findings)
	}
	for _, j := range s.JobTypes {
		if j.Drift || j.Lock != j.InProgress || j.LockInfoTotal != j.InProgress {
			t.Errorf("job type %+v", j)
		}
		if j.Name == "quick" && (j.Lock != 0 || j.LockInfoTotal != 0 || j.Queued != 0) {
			t.Errorf("quick %+v", j)
		}
	}
	if !strings.HasPrefix(s.Namespace, "conf-") {
		t.Errorf("namespace %q", s.Namespace)
	}
}
