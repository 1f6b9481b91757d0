//go:build bench

package bench_test

import (
	"os"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestBenchWorkers is the workers line of `make bench` on its own: the
// snapshot of pools x job types with 10 workers each, half of them busy,
// against the raw pipelined batch of the same reads, the observations
// included.
func TestBenchWorkers(t *testing.T) {
	srv := redistest.Start(t)
	e := &env{t: t, srv: srv, sz: fullSizes, tb: &table{header: []string{
		"workq-tui performance: the snapshot with workers, ratio measured in one run against one redis-server",
		"machine: " + machine(),
	}}}
	e.workers()
	var b strings.Builder
	e.tb.write(&b)
	if _, err := os.Stdout.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if m := e.tb.missed(); len(m) > 0 {
		t.Errorf("goals missed: %s", strings.Join(m, "; "))
	}
}
