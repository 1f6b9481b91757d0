package cli

import (
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// An audit line names a job type whose name holds a comma as one target:
// pausing "x,all" never reads as pausing x and all, and a name holding
// a control character stays on one line, escaped.
func TestAuditTargetsWithCommas(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	names := []string{"x,all", "a\"b\x1b[31m"}
	redistest.Do(t, c, "SADD", "work:known_jobs", names[0], names[1], "x", "all")
	log := filepath.Join(t.TempDir(), "audit.log")
	if _, stderr, code := runCLI(t, input{}, "--redis="+srv.Addr(), "--yes", "--audit-log="+log, "pause", names[0], names[1]); code != 0 {
		t.Fatalf("pause: exit %d: %s", code, stderr)
	}
	lines := auditLines(t, log)
	if len(lines) != 1 || strings.ContainsAny(lines[0], "\x1b\r\n") {
		t.Fatalf("audit lines: %q", lines)
	}
	_, rest, _ := strings.Cut(lines[0], " targets=")
	field, err := strconv.QuotedPrefix(rest)
	if err != nil {
		t.Fatalf("targets field of %q: %v", lines[0], err)
	}
	got, err := audit.ParseTargets(field)
	if err != nil || !reflect.DeepEqual(got, names) {
		t.Fatalf("targets %q (%v), want %q: %s", got, err, names, lines[0])
	}
	if n, _ := redistest.Do(t, c, "EXISTS", "work:jobs:x:paused", "work:jobs:all:paused").(int64); n != 0 {
		t.Fatalf("%d of x and all paused", n)
	}
}
