//go:build bench

package bench_test

import (
	"os"
	"strings"
	"testing"
)

// TestBenchTable is `make bench`: the full sizes. It prints the
// table on stdout (and to $BENCH_OUT when set) and fails when a goal is
// missed.
func TestBenchTable(t *testing.T) {
	tb := runBench(t, fullSizes)
	var b strings.Builder
	tb.write(&b)
	if _, err := os.Stdout.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("BENCH_OUT"); p != "" {
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Errorf("write %s: %v", p, err)
		}
	}
	if m := tb.missed(); len(m) > 0 {
		t.Errorf("goals missed: %s", strings.Join(m, "; "))
	}
}
