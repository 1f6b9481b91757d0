//go:build bench

package bench_test

import (
	"os"
	"strings"
	"testing"
)

// TestSetsBenchTable runs only the job-set lines of the table at the full
// sizes (or those of WORKQ_SETS_MEMBERS): the same code as in `make bench`,
// for a machine where the whole table takes too long.
func TestSetsBenchTable(t *testing.T) {
	tb := runSection(t, fullSizes, (*env).sets)
	var b strings.Builder
	tb.write(&b)
	if _, err := os.Stdout.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if m := tb.missed(); len(m) > 0 {
		t.Errorf("goals missed: %s", strings.Join(m, "; "))
	}
}
