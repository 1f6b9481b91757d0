//go:build bench

package bench_test

import (
	"os"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestBenchHealthLines runs, at the full sizes, only the job health's
// lines (section 9). It prints them and fails when a goal is missed.
func TestBenchHealthLines(t *testing.T) {
	srv := redistest.Start(t)
	e := &env{t: t, srv: srv, sz: fullSizes, tb: &table{}}
	e.tb.header = []string{"workq-tui performance, section 9 only", "machine: " + machine()}
	e.health()
	var b strings.Builder
	e.tb.write(&b)
	if _, err := os.Stdout.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if m := e.tb.missed(); len(m) > 0 {
		t.Errorf("goals missed: %s", strings.Join(m, "; "))
	}
}
