// Package exporter_test checks the exporter against the real gocraft/work
// v0.5.1: on state that live and killed worker pools left in Redis, a scrape
// parsed with the Prometheus text parser gives the numbers that the built
// `workq-tui snapshot --json` prints for the same state.
package exporter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/exporter"
	"github.com/workq-tui/workq-tui/exporter/exportertest"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(m.Run())
}

// snapshotJSON is what this test reads of `snapshot --json`.
type snapshotJSON struct {
	Namespace string `json:"namespace"`
	Pools     []struct {
		ID        string `json:"id"`
		Status    string `json:"status"`
		Heartbeat *struct {
			Host string `json:"host"`
		} `json:"heartbeat"`
		HeartbeatAgeSeconds *float64         `json:"heartbeat_age_seconds"`
		InProgress          map[string]int64 `json:"in_progress"`
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
	Sets struct {
		Retry     int64 `json:"retry"`
		Scheduled int64 `json:"scheduled"`
		Dead      int64 `json:"dead"`
	} `json:"sets"`
	Orphans []struct {
		Length int64 `json:"length"`
	} `json:"orphans"`
	Workers []struct {
		Busy bool `json:"busy"`
	} `json:"workers"`
	Findings []struct {
		Kind string `json:"kind"`
	} `json:"findings"`
}

// count is how many workers are busy and how many long_running findings
// the snapshot has.
func (s *snapshotJSON) count() (busy, long float64) {
	for _, w := range s.Workers {
		if w.Busy {
			busy++
		}
	}
	for _, f := range s.Findings {
		if f.Kind == "long_running" {
			long++
		}
	}
	return busy, long
}

// series is what the exporter should give for the JSON snapshot.
func (s *snapshotJSON) series(target string) exportertest.Series {
	out := exportertest.Series{}
	k := func(name string, labels ...string) string {
		return exportertest.Key(name, append([]string{"target", target, "namespace", s.Namespace}, labels...)...)
	}
	b := map[bool]float64{false: 0, true: 1}
	for _, st := range []string{"alive", "late", "dead"} {
		out[k("workq_pools", "status", st)] = 0
	}
	out[k("workq_pools_truncated")] = 0
	out[k("workq_set_jobs", "set", "retry")] = float64(s.Sets.Retry)
	out[k("workq_set_jobs", "set", "scheduled")] = float64(s.Sets.Scheduled)
	out[k("workq_set_jobs", "set", "dead")] = float64(s.Sets.Dead)
	out[k("workq_busy_workers")], out[k("workq_long_running_jobs")] = s.count()
	for _, p := range s.Pools {
		out[k("workq_pools", "status", p.Status)]++
		if p.HeartbeatAgeSeconds != nil && p.Heartbeat != nil {
			out[k("workq_pool_heartbeat_age_seconds", "pool", p.ID, "host", p.Heartbeat.Host)] = *p.HeartbeatAgeSeconds
		}
		var n int64
		for _, v := range p.InProgress {
			n += v
		}
		out[k("workq_pool_in_progress", "pool", p.ID)] = float64(n)
	}
	for _, j := range s.JobTypes {
		out[k("workq_job_queued", "job", j.Name)] = float64(j.Queued)
		switch {
		case j.LatencySeconds != nil:
			out[k("workq_job_latency_seconds", "job", j.Name)] = *j.LatencySeconds
		case j.Queued == 0:
			out[k("workq_job_latency_seconds", "job", j.Name)] = 0
		}
		out[k("workq_job_in_progress", "job", j.Name)] = float64(j.InProgress)
		out[k("workq_job_lock", "job", j.Name)] = float64(j.Lock)
		out[k("workq_job_lock_info_held", "job", j.Name)] = float64(j.LockInfoTotal)
		out[k("workq_job_max_concurrency", "job", j.Name)] = float64(j.MaxConcurrency)
		out[k("workq_job_paused", "job", j.Name)] = b[j.Paused]
		out[k("workq_job_drift", "job", j.Name)] = b[j.Drift]
	}
	var jobs int64
	for _, o := range s.Orphans {
		jobs += o.Length
	}
	out[k("workq_orphaned_lists")] = float64(len(s.Orphans))
	out[k("workq_orphaned_jobs")] = float64(jobs)
	return out
}

func buildWorkqTUI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "workq-tui")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..") // the root module
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build workq-tui: %v\n%s", err, out)
	}
	return bin
}

// snapshot runs `snapshot --json` with the extra flags.
func snapshot(t *testing.T, bin, addr, ns string, flags ...string) *snapshotJSON {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--redis", addr, "-n", ns, "--read-only", "snapshot", "--json"}, flags...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("workq-tui snapshot: %v: %s", err, stderr.String())
		}
	}
	var s snapshotJSON
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("snapshot --json: %v\n%s", err, stdout.String())
	}
	return &s
}

func TestScrapeEqualsSnapshotJSON(t *testing.T) {
	bin := buildWorkqTUI(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "conf-exporter"

	live := gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 3, Block: true,
		Jobs: []gcstate.JobType{{Name: "mail", Enqueue: 2}}})
	gcstate.WaitFor(t, 10*time.Second, "the live pool to hold 2 jobs", func() (bool, error) {
		n, err := redis.Int(c.Do("LLEN", ns+":jobs:mail:"+live.ID+":inprogress"))
		return n == 2, err
	})
	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: "crunch", Enqueue: 5}, {Name: "report:pdf", MaxConcurrency: 1, Enqueue: 2}}})
	// An in-progress list of a pool that left the set: an orphan.
	if _, err := c.Do("LPUSH", ns+":jobs:crunch:0123456789abcdef01234567:inprogress", `{"name":"crunch","id":"o1","t":1}`, `{"name":"crunch","id":"o2","t":1}`); err != nil {
		t.Fatal(err)
	}
	// Three jobs scheduled an hour ahead by the library, and one dead job.
	enq := work.NewEnqueuer(ns, gcstate.RedisPool(t, srv.Addr()))
	for i := 0; i < 3; i++ {
		if _, err := enq.EnqueueIn("mail", 3600, work.Q{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Do("ZADD", ns+":dead", 1, `{"name":"crunch","id":"d1","t":1,"fails":1,"err":"boom","failed_at":1}`); err != nil {
		t.Fatal(err)
	}

	src, err := exporter.NewRedisSource(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second}, ns, 0)
	if err != nil {
		t.Fatal(err)
	}
	e, err := exporter.New([]exporter.Target{src.Target("conf")},
		exporter.Options{MinInterval: 100 * time.Millisecond, ScanInterval: 200 * time.Millisecond, LongAfter: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e.Handler())
	defer func() { hs.Close(); e.Close() }()

	// Scrape as Prometheus would until the killed pool is dead, the orphan
	// scan has run and every busy worker's job has run past the
	// long-after of 1 s (the blocked jobs of the live pool and the jobs
	// the killed pool left never end, so the snapshot read after it finds
	// them all long-running too).
	dead := exportertest.Key("workq_pools", "target", "conf", "namespace", ns, "status", "dead")
	lists := exportertest.Key("workq_orphaned_lists", "target", "conf", "namespace", ns)
	busy := exportertest.Key("workq_busy_workers", "target", "conf", "namespace", ns)
	long := exportertest.Key("workq_long_running_jobs", "target", "conf", "namespace", ns)
	deadline := time.Now().Add(40 * time.Second)
	for {
		got := exportertest.Scrape(t, hs.URL+"/metrics")
		if got[dead] == 1 && got[lists] == 1 && got[busy] >= 2 && got[long] == got[busy] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 40 s: %v dead pools, %v orphaned lists, %v busy workers, %v long-running (killed pool %s)",
				got[dead], got[lists], got[busy], got[long], killed.ID)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // past the minimum interval: the next scrape reads again
	got := exportertest.Scrape(t, hs.URL+"/metrics")
	want := snapshot(t, bin, srv.Addr(), ns, "--long-after", "1s")
	names := append(exportertest.SnapshotNames(), "workq_orphaned_lists", "workq_orphaned_jobs")
	if d := exportertest.Diff(got.Only(names...), want.series("conf"), 2); d != "" {
		t.Errorf("scrape and snapshot --json differ:\n%s", d)
	}
	if n := len(want.Pools); n != 2 {
		t.Errorf("snapshot has %d pools, want the live and the killed one", n)
	}
	// The live pool's two blocked mail jobs at least, and the jobs the
	// killed pool left.
	var held int64
	for _, n := range killed.InProgress {
		held += n
	}
	if b, l := want.count(); b != float64(2+held) || l != b {
		t.Errorf("snapshot has %v busy workers and %v long_running findings; want the live pool's 2 and the killed pool's %v, all long-running", b, l, killed.InProgress)
	}
	if got[exportertest.Key("workq_up", "target", "conf", "namespace", ns)] != 1 {
		t.Error("workq_up is not 1")
	}
	if n := got[exportertest.Key("workq_set_jobs", "target", "conf", "namespace", ns, "set", "scheduled")]; n != 3 || want.Sets.Scheduled != 3 {
		t.Errorf("scheduled jobs: scrape %v, snapshot %d; want 3", n, want.Sets.Scheduled)
	}
	if got[exportertest.Key("workq_job_max_concurrency", "target", "conf", "namespace", ns, "job", "report:pdf")] != 1 {
		t.Error("report:pdf's max concurrency is not 1")
	}
	// The killed pool's workers took crunch and report:pdf jobs in a split
	// of their choosing; the rest of the 5 crunch jobs wait in the queue.
	queued := got[exportertest.Key("workq_job_queued", "target", "conf", "namespace", ns, "job", "crunch")]
	if want := float64(5 - killed.InProgress["crunch"]); queued != want {
		t.Errorf("crunch queued = %v, want %v (killed pool holds %v)", queued, want, killed.InProgress)
	}
}
