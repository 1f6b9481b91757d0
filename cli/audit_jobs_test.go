package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// The audit line of a job action names it as the screen's does, so that
// one grep finds both: action=jobs-requeue or action=jobs-delete, targets
// set=NAME (or queue=NAME), then all and job=NAME for a bulk action, or the
// jobs one by one (the line quotes the targets, which hold "=").
func TestJobsAuditVocabulary(t *testing.T) {
	srv := redistest.Start(t)
	jobsState(t, srv.Dial())
	log := filepath.Join(t.TempDir(), "audit.log")
	addr := "--redis=" + srv.Addr()
	for _, args := range [][]string{
		{"jobs", "dead", "delete", "d3@1700000300"},
		{"jobs", "dead", "requeue", "--all", "--job", "mail"},
		{"jobs", "retry", "delete", "--all"},
		{"jobs", "queue", "mail", "delete", "q1"},
	} {
		if _, stderr, code := runCLI(t, input{}, append([]string{addr, "--yes", "--audit-log=" + log}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	lines := auditLines(t, log)
	want := []string{
		`action=jobs-delete targets="set=dead,d3@1700000300" `,
		`action=jobs-requeue targets="set=dead,all,job=mail" `,
		`action=jobs-delete targets="set=retry,all" `,
		`action=jobs-delete targets="queue=mail,q1" `,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d audit lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d lacks %q:\n%s", i+1, w, lines[i])
		}
	}
}
