package exporter_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workq-tui/workq-tui/exporter"
	"github.com/workq-tui/workq-tui/model"
)

// described lists the names of the metrics the exporter describes.
func described(t *testing.T) map[string]bool {
	t.Helper()
	e, err := exporter.New([]exporter.Target{{Name: "a", Reader: &fakeReader{script: []*model.Snapshot{nil}}}}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ch := make(chan *prometheus.Desc, 64)
	exporter.DescribeTo(e, ch)
	close(ch)
	names := map[string]bool{}
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for d := range ch {
		m := fq.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read the name of %s", d)
		}
		names[m[1]] = true
	}
	return names
}

// The reference and the alert rules name only metrics the exporter has
// (the busy-worker metrics, which the snapshot does not read yet, aside),
// and the reference lists every one of them.
func TestDocsNameTheExportedMetrics(t *testing.T) {
	names := described(t)
	planned := map[string]bool{"workq_busy_workers": true, "workq_long_running_jobs": true}
	metric := regexp.MustCompile(`\bworkq_[a-z_]+`)
	for _, file := range []string{"../docs/metrics.md", "../docs/alerts.yml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metric.FindAllString(string(b), -1) {
			if !names[m] && !planned[m] {
				t.Errorf("%s names %s, which the exporter does not export", file, m)
			}
		}
	}
	ref, err := os.ReadFile("../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	for n := range names {
		if !strings.Contains(string(ref), "| `"+n+"` |") {
			t.Errorf("docs/metrics.md has no row for %s", n)
		}
	}
}
