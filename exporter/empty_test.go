package exporter_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/exporter"
	"github.com/workq-tui/workq-tui/exporter/exportertest"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// A namespace without any gocraft/work key (a typo in the target's
// namespace) sets workq_namespace_empty to 1; one with keys, 0.
func TestNamespaceEmptyGauge(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	buildState(t, c) // namespace myapp
	typo, err := exporter.NewRedisSource(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second}, "myap", 0)
	if err != nil {
		t.Fatal(err)
	}
	e, err := exporter.New([]exporter.Target{redisTarget(t, "prod", srv.Addr(), 5*time.Second), typo.Target("typo")},
		exporter.Options{MinInterval: time.Second, ScanInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e.Handler())
	defer func() { hs.Close(); e.Close() }()
	got := exportertest.Scrape(t, hs.URL+"/metrics")
	for _, tc := range []struct {
		target, ns string
		want       float64
	}{{"prod", ns, 0}, {"typo", "myap", 1}} {
		k := exportertest.Key("workq_namespace_empty", "target", tc.target, "namespace", tc.ns)
		if v, ok := got[k]; !ok || v != tc.want {
			t.Errorf("%s = %v (present %v), want %v", k, v, ok, tc.want)
		}
	}
}
