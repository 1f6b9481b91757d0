//go:build bench

package bench_test

import (
	"os"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestBenchPollLines runs, at the full sizes, only the snapshot's lines
// (section 1, which holds 1b) and the screen's regular poll's (section 5),
// for a machine that cannot spare the whole table's run. It prints them
// and fails when a goal is missed.
func TestBenchPollLines(t *testing.T) {
	srv := redistest.Start(t)
	e := &env{t: t, srv: srv, sz: fullSizes, tb: &table{}, bin: redistest.Binary(t)}
	e.tb.header = []string{"workq-tui performance, sections 1 and 5 only", "machine: " + machine()}
	e.snapshot()
	e.poll()
	var b strings.Builder
	e.tb.write(&b)
	if _, err := os.Stdout.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if m := e.tb.missed(); len(m) > 0 {
		t.Errorf("goals missed: %s", strings.Join(m, "; "))
	}
}
