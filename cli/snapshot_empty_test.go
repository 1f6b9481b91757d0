package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// A namespace without any gocraft/work key (a typo in -n, or no -n on a
// Redis whose namespace is another) makes snapshot exit 1 with one line
// naming the namespaces that do hold gocraft/work keys; --json holds the
// finding and the search.
func TestSnapshotEmptyNamespace(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	redistest.Do(t, c, "SADD", "inc3:known_jobs", "mail")
	redistest.Do(t, c, "SADD", "inc3:worker_pools", "p1")
	redistest.Do(t, c, "SADD", "myapp:known_jobs", "sms")
	addr := "--redis=" + srv.Addr()

	out, stderr, code := runCLI(t, input{}, addr, "-n", "inc33", "snapshot")
	if code != ExitError {
		t.Errorf("exit %d, want 1", code)
	}
	want := "workq-tui: redis at " + srv.Addr() + `: namespace inc33: no gocraft/work keys in this namespace`
	if !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "on this database: inc3, myapp") || errorLines(stderr) != 1 {
		t.Errorf("stderr %q, want one line starting %q naming inc3 and myapp", stderr, want)
	}
	if out != "" {
		t.Errorf("stdout %q, want nothing beside the one line", out)
	}

	out, _, code = runCLI(t, input{}, addr, "-n", "inc33", "snapshot", "--json")
	if code != ExitError {
		t.Errorf("--json: exit %d, want 1", code)
	}
	var doc struct {
		Findings []struct{ Kind, Subject string }
		Search   *struct{ Namespaces []string } `json:"namespace_search"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(doc.Findings) != 1 || doc.Findings[0].Kind != "empty_namespace" || doc.Findings[0].Subject != "inc33" ||
		doc.Search == nil || strings.Join(doc.Search.Namespaces, ",") != "inc3,myapp" {
		t.Errorf("--json: findings %+v, search %+v", doc.Findings, doc.Search)
	}

	// The namespace that exists is no finding, and its JSON has a null search.
	out, stderr, code = runCLI(t, input{}, addr, "-n", "inc3", "snapshot", "--json")
	if code == ExitError || strings.Contains(out, "empty_namespace") || !strings.Contains(out, `"namespace_search": null`) {
		t.Errorf("inc3: exit %d, stderr %q:\n%s", code, stderr, out)
	}
}

// An empty namespace on a database with no other namespace: the search
// found none, an empty array as docs/snapshot-json.md promises, not null.
func TestSnapshotJSONNoNamespaceFound(t *testing.T) {
	srv := redistest.Start(t)
	out, _, _ := runCLI(t, input{}, "--redis", srv.Addr(), "-n", "nothing", "snapshot", "--json")
	if !strings.Contains(out, `"namespaces": []`) {
		t.Errorf("the search of an empty database:\n%s", out)
	}
}
