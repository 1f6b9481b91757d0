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
	e, err := exporter.New([]exporter.Target{redisTarget(t, "prod", srv.Addr(), 5*time.Second)},
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
	if !bytes.Contains(body, []byte("workq_job_lock{")) {
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
