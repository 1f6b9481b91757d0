package exporter_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/exporter"
	"github.com/workq-tui/workq-tui/exporter/exportertest"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestExporterVariant: workq_variant names the build the namespace's keys
// tell: a unique key holding a job is gocraft/work master's (or gojek's);
// a unique job without unique_key is v0.5.1's.
func TestExporterVariant(t *testing.T) {
	for _, tc := range []struct {
		name, job, value, want string
	}{
		{name: "master", job: `{"name":"sync","id":"q1","t":1,"args":{"a":1},"unique":true,"unique_key":"k"}`,
			value: `{"name":"sync","id":"u1","t":2,"args":{"a":2},"unique":true,"unique_key":"k"}`, want: "master-or-gojek"},
		{name: "v0.5.1", job: `{"name":"sync","id":"q1","t":1,"args":{"a":1},"unique":true}`, value: "1", want: "v0.5.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			c := srv.Dial()
			defer c.Close()
			redistest.Do(t, c, "SADD", ns+":known_jobs", "sync")
			redistest.Do(t, c, "LPUSH", ns+":jobs:sync", tc.job)
			redistest.Do(t, c, "SET", ns+":unique:sync:{\"a\":1}\n", tc.value)
			e, err := exporter.New([]exporter.Target{redisTarget(t, "prod", srv.Addr(), 5*time.Second)},
				exporter.Options{MinInterval: 15 * time.Second, ScanInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(e.Handler())
			defer func() { hs.Close(); e.Close() }()
			got := exportertest.Scrape(t, hs.URL+"/metrics")
			k := exportertest.Key("workq_variant", "target", "prod", "namespace", ns, "name", tc.want)
			if got[k] != 1 {
				t.Errorf("%s = %v; scrape:\n%v", k, got[k], got.Only("workq_variant"))
			}
		})
	}
}
