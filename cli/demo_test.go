package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// TestDemoCommands: --demo works with the one-shot commands, in any
// namespace, and the same seed gives the same deployment.
func TestDemoCommands(t *testing.T) {
	type snap struct {
		Namespace string `json:"namespace"`
		Pools     []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"pools"`
		JobTypes []struct {
			Name  string `json:"name"`
			Drift bool   `json:"drift"`
		} `json:"job_types"`
		Orphans []struct {
			Key string `json:"key"`
		} `json:"orphans"`
		Findings []struct {
			Kind    string `json:"kind"`
			Subject string `json:"subject"`
		} `json:"findings"`
	}
	read := func(args ...string) snap {
		t.Helper()
		out, errOut, code := runCLI(t, input{}, args...)
		if code != ExitFindings {
			t.Fatalf("%v: exit %d, want %d (findings); stderr %q", args, code, ExitFindings, errOut)
		}
		var s snap
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v: %v in %q", args, err, out)
		}
		return s
	}
	a := read("--demo", "snapshot", "--json")
	status := map[string]int{}
	for _, p := range a.Pools {
		status[p.Status]++
	}
	if status["alive"] != 4 || status["dead"] != 2 {
		t.Errorf("pools by status %v, want 4 alive and 2 dead", status)
	}
	var drift []string
	for _, jt := range a.JobTypes {
		if jt.Drift {
			drift = append(drift, jt.Name)
		}
	}
	if len(drift) != 1 || len(a.Orphans) != 1 {
		t.Fatalf("drift %v, orphans %v: want one of each", drift, a.Orphans)
	}
	// The live incident: a type failing now, one starving behind stuck
	// workers.
	found := map[string]bool{}
	for _, f := range a.Findings {
		found[f.Kind+" "+f.Subject] = true
	}
	for _, want := range []string{"failing charge_card", "starving send_sms", "stuck build_statement"} {
		if !found[want] {
			t.Errorf("no %s finding in the demo: %v", want, a.Findings)
		}
	}

	b := read("--demo", "--demo-seed", "1", "-n", "myapp-work", "snapshot", "--json")
	if b.Namespace != "myapp-work" || len(b.Orphans) != 1 || !strings.HasPrefix(b.Orphans[0].Key, "myapp-work:jobs:") {
		t.Errorf("namespace %q, orphans %v", b.Namespace, b.Orphans)
	}
	if a.Pools[0].ID != b.Pools[0].ID {
		t.Errorf("same seed, different pools: %s vs %s", a.Pools[0].ID, b.Pools[0].ID)
	}
	c := read("--demo", "--demo-seed", "2", "snapshot", "--json")
	if c.Pools[0].ID == a.Pools[0].ID {
		t.Errorf("seeds 1 and 2 gave the same pool %s", a.Pools[0].ID)
	}

	// The demo is writable: a repair runs there and clears the drift.
	if _, errOut, code := runCLI(t, input{}, "--demo", "repair-locks", "--yes", drift[0]); code != ExitOK {
		t.Errorf("repair-locks on the demo: exit %d, %s", code, errOut)
	}
}

// The demo's embedded Redis answers INFO without memory or persistence
// sections: the demo says nothing of them, and blames no user for it.
func TestDemoHealthNotBlamedOnUser(t *testing.T) {
	out, errOut, _ := runCLI(t, input{}, "--demo", "snapshot")
	if strings.Contains(out+errOut, "not readable") || strings.Contains(out+errOut, "may lose jobs") {
		t.Errorf("the demo's snapshot warns of an unreadable health:\n%s%s", out, errOut)
	}
	out, _, _ = runCLI(t, input{}, "--demo", "snapshot", "--json")
	if strings.Contains(out, "redis_health_unreadable") {
		t.Errorf("the demo's snapshot --json:\n%s", out)
	}
}

// The demo's listings and summaries fit 80 columns; --wide gives what
// they leave out.
func TestDemoJobsFit80(t *testing.T) {
	for _, args := range [][]string{{"jobs", "dead"}, {"jobs", "retry"}, {"jobs", "dead", "--summary"}, {"jobs", "retry", "--summary"}} {
		out, errOut, code := runCLI(t, input{}, append([]string{"--demo"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if w := textsafe.Width(l); w > 80 {
				t.Errorf("%v: a line of %d columns: %q", args, w, l)
			}
		}
	}
	out, _, _ := runCLI(t, input{}, "--demo", "jobs", "dead", "--summary", "--wide")
	if !strings.Contains(out, "EXAMPLE") {
		t.Errorf("--summary --wide has no examples:\n%s", out)
	}
}

// explain's text wraps at spaces to 80 columns; only a fix command line,
// which must paste whole, may be wider. --wide keeps each line whole.
func TestDemoExplainFits80(t *testing.T) {
	args := []string{"--demo", "explain", "charge_card", "export_report", "import_ledger", "sync_crm"}
	out, _, _ := runCLI(t, input{}, args...)
	for _, l := range strings.Split(out, "\n") {
		if w := textsafe.Width(l); w > 80 && !strings.HasPrefix(strings.TrimSpace(l), "fix: ") {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
	wide, _, _ := runCLI(t, input{}, append(args, "--wide")...)
	if strings.Count(wide, "\n") >= strings.Count(out, "\n") {
		t.Errorf("--wide wraps too:\n%s", wide)
	}
}

// find's places fit 80 columns, a long one continued under its id;
// --wide keeps each on one line.
func TestDemoFindFits80(t *testing.T) {
	args := []string{"--demo", "find", "--where", "job:charge_card"}
	out, errOut, code := runCLI(t, input{}, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if w := textsafe.Width(l); w > 80 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
	wide, _, _ := runCLI(t, input{}, append(args, "--wide")...)
	if strings.Count(wide, "\n") >= strings.Count(out, "\n") {
		t.Errorf("--wide wraps too:\n%s", wide)
	}
}
