package exporter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/exporter/exportertest"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// The built `workq-tui exporter`, pointed at a target of a configuration
// file, serves the numbers that `workq-tui snapshot --json` prints for the
// same target, on state that a killed gocraft/work pool left in Redis.
func TestExporterCommandEqualsSnapshotOfTarget(t *testing.T) {
	bin := buildWorkqTUI(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "conf-exporter-cmd"
	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: "crunch", Enqueue: 4}}})
	if _, err := c.Do("LPUSH", ns+":jobs:crunch:0123456789abcdef01234567:inprogress", `{"name":"crunch","id":"o1","t":1}`); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	text := fmt.Sprintf("[targets.conf]\nredis = %q\nnamespace = %q\nread_only = true\n", srv.Addr(), ns)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}

	addr := "127.0.0.1:" + strconv.Itoa(redistest.FreePort(t))
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "exporter", "--config", cfg, "-t", "conf", "--listen", addr,
		"--min-interval", "100ms", "--scan-interval", "200ms", "--long-after", "1s")
	cmd.Env = redistest.Env()
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			t.Logf("exporter killed: %v", <-exited)
		}
	}()

	// Scrape until the killed pool is dead, the orphan scan has run and
	// the jobs the killed pool left have run past --long-after (they never
	// end, so the snapshot read after it finds them long-running too).
	url := "http://" + addr + "/metrics"
	dead := exportertest.Key("workq_pools", "target", "conf", "namespace", ns, "status", "dead")
	lists := exportertest.Key("workq_orphaned_lists", "target", "conf", "namespace", ns)
	busy := exportertest.Key("workq_busy_workers", "target", "conf", "namespace", ns)
	long := exportertest.Key("workq_long_running_jobs", "target", "conf", "namespace", ns)
	deadline := time.Now().Add(40 * time.Second)
	for {
		got, err := exportertest.TryScrape(url)
		if err == nil && got[dead] == 1 && got[lists] == 1 && got[busy] > 0 && got[long] == got[busy] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 40 s: %v (scrape error %v), killed pool %s\n%s", got, err, killed.ID, stderr.String())
		}
		time.Sleep(150 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // past the minimum interval: the next scrape reads again
	got := exportertest.Scrape(t, url)

	out, err := exec.Command(bin, "snapshot", "--config", cfg, "-t", "conf", "--json", "--long-after", "1s").Output()
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 3) {
		t.Fatalf("snapshot --target conf: %v", err)
	}
	var want snapshotJSON
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("snapshot --json: %v\n%s", err, out)
	}
	names := append(exportertest.SnapshotNames(), "workq_orphaned_lists", "workq_orphaned_jobs")
	if d := exportertest.Diff(got.Only(names...), want.series("conf"), 2); d != "" {
		t.Errorf("scrape and snapshot --json differ:\n%s", d)
	}
	if b, l := want.count(); b == 0 || l != b {
		t.Errorf("snapshot has %v busy workers and %v long_running findings; want the killed pool's, all long-running", b, l)
	}
	if n, err := redis.Int(c.Do("LLEN", ns+":jobs:crunch")); err != nil || float64(n) != got[exportertest.Key("workq_job_queued", "target", "conf", "namespace", ns, "job", "crunch")] {
		t.Errorf("crunch queue %d (%v), scrape %v", n, err, got)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("exporter after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("exporter still running 10 s after SIGTERM\n%s", stderr.String())
	}
}
