package variants_test

import (
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/variants"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestExplainLeaked: right after the leak, explain does not say the type
// runs normally with one job in progress: it says the entry is leaked, that
// its job ran, and gives the fix, which, pasted, removes it.
func TestExplainLeaked(t *testing.T) {
	runCLI := cliIn(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	s := variants.Read(t, "master-live.json")
	variants.Load(t, c, s, true)
	out, stderr, code := runCLI("--redis", srv.Addr(), "--namespace", s.Namespace, "explain", "--wide", "sync_account")
	if strings.Contains(out, "running normally") || !strings.Contains(out, "1 leaked entry of sync_account's in progress 1 hold no slot") ||
		!strings.Contains(out, "its unique key is gone: the job read from it has run") {
		t.Fatalf("explain: exit %d\n%s\n%s", code, out, stderr)
	}
	prefix := "workq-tui --redis " + srv.Addr() + " --namespace " + s.Namespace + " "
	var line string
	for _, l := range strings.Split(out, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(l), "fix: "); ok {
			line = f
			break
		}
	}
	if line != prefix+"remove-leaked sync_account" {
		t.Fatalf("fix line %q\n%s", line, out)
	}
	if o, e, code := runCLI(append(strings.Fields(strings.TrimPrefix(line, "workq-tui ")), "--yes")...); code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", line, code, o, e)
	}
	if n, _ := redis.Int(c.Do("LLEN", s.Namespace+":jobs:sync_account:"+s.PoolID(t)+":inprogress")); n != 0 {
		t.Fatalf("the fix left %d entries", n)
	}
	out, _, _ = runCLI("--redis", srv.Addr(), "--namespace", s.Namespace, "explain", "sync_account")
	if !strings.Contains(out, "running normally") {
		t.Errorf("after the fix:\n%s", out)
	}
}
