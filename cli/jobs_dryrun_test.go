package cli

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// A dry run of a requeue that no live pool would serve prints the plan, with
// the warning in it, instead of failing before the plan: the operator sees
// what a forced requeue would push before the workers are back. It exits 1,
// as the refused run does.
func TestJobsDeadRequeueDryRunUnservedShowsPlan(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsState(t, c) // "gone" is known, in the dead set, served by no pool
	before := redistest.Do(t, c, "ZCARD", "work:dead")
	addr := "--redis=" + srv.Addr()

	for _, args := range [][]string{
		{"jobs", "dead", "requeue", "--all", "--job", "gone", "--dry-run"},
		{"jobs", "dead", "requeue", "d4", "--dry-run"},
	} {
		out, stderr, code := runCLI(t, input{}, append([]string{addr}, args...)...)
		// It exits as the run it stands for would (refused: 1), saying so.
		if code != 1 || !strings.Contains(stderr, "a run without --force is refused") || errorLines(stderr) != 1 {
			t.Errorf("%v: exit %d, want 1 with the refusal: %q", args, code, stderr)
		}
		if !strings.Contains(out, "d4") {
			t.Errorf("%v: the plan does not list the job d4:\n%s", args, out)
		}
		if !strings.Contains(out, "no worker pool serves gone") || !strings.Contains(out, "without --force") {
			t.Errorf("%v: the plan does not warn that no pool serves gone and that a run needs --force:\n%s", args, out)
		}
		if strings.Contains(out, "--force given") {
			t.Errorf("%v: the plan says --force was given, it was not:\n%s", args, out)
		}
		if !strings.Contains(out, "Dry run: nothing changed.") {
			t.Errorf("%v: no dry-run line:\n%s", args, out)
		}
	}
	// Without --dry-run the requeue is still refused.
	_, stderr, code := runCLI(t, input{}, addr, "jobs", "dead", "requeue", "--all", "--job", "gone", "--yes")
	if code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("a real requeue of unserved jobs: exit %d, stderr %q; want 1 naming --force", code, stderr)
	}
	if after := redistest.Do(t, c, "ZCARD", "work:dead"); after != before {
		t.Errorf("dead set went from %v to %v members", before, after)
	}
}
