//go:build bench

package bench_test

import (
	"os"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestBenchScreenScale runs, at the full size, only the lines of the
// screen at 10,000 pools x 50 job types (5e to 5h), for a machine that
// cannot spare the whole table's run. It prints them and fails when a goal
// is missed.
func TestBenchScreenScale(t *testing.T) {
	tb := runSection(t, fullSizes, func(e *env) {
		e.bin = redistest.Binary(t)
		e.screenScale()
	})
	var b strings.Builder
	tb.write(&b)
	if _, err := os.Stdout.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if m := tb.missed(); len(m) > 0 {
		t.Errorf("goals missed: %s", strings.Join(m, "; "))
	}
}
