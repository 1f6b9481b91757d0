package exporter_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/exporter"
	"github.com/workq-tui/workq-tui/exporter/exportertest"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// promtool finds Prometheus's promtool or fails the test with an
// instruction.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatalf("promtool is not installed; install it with `apt-get install -y prometheus` (Debian ships promtool in it; or run `make deps`)")
	}
	return p
}

// What the exporter serves for a namespace that shows every kind of series
// (dead pools, drift, a paused type, set jobs, orphans) passes `promtool
// check metrics`, Prometheus's own lint of names, types and help.
func TestPromtoolChecksTheMetrics(t *testing.T) {
	bin := promtool(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	buildState(t, c)
	src, err := exporter.NewRedisSource(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second}, ns, 0)
	if err != nil {
		t.Fatal(err)
	}
	src.JudgeJobs(model.DefaultHealthLimits(), 0)
	e, err := exporter.New([]exporter.Target{src.Target("prod")},
		exporter.Options{MinInterval: time.Second, ScanInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e.Handler())
	defer func() { hs.Close(); e.Close() }()
	url := hs.URL + "/metrics"
	// Wait for the orphan scan, so that its series are checked too.
	lists := exportertest.Key("workq_orphaned_lists", "target", "prod", "namespace", ns)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, ok := exportertest.Scrape(t, url)[lists]; ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the orphan scan gave no series within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body, []byte("workq_job_lock{")) || !bytes.Contains(body, []byte("workq_job_problem{")) || !bytes.Contains(body, []byte("workq_job_failures_per_minute{")) {
		t.Fatalf("the scrape has no job series:\n%s", body)
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// The alert rules shipped in docs/ load in Prometheus: `promtool check
// rules` parses them and their expressions.
func TestPromtoolChecksTheAlertRules(t *testing.T) {
	out, err := exec.Command(promtool(t), "check", "rules", "../docs/alerts.yml").CombinedOutput()
	if err != nil {
		t.Errorf("promtool check rules docs/alerts.yml: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "SUCCESS") {
		t.Errorf("promtool check rules says no SUCCESS:\n%s", out)
	}
}

// The job health alerts fire on the series they watch and on no others:
// `promtool test rules` on testdata/alerts_test.yml.
func TestPromtoolTestsTheJobHealthAlerts(t *testing.T) {
	cmd := exec.Command(promtool(t), "test", "rules", "alerts_test.yml")
	cmd.Dir = "testdata"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool test rules: %v\n%s", err, out)
	}
}
