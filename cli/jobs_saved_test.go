package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestJobsWhereSaved: --where @NAME reads the query saved under NAME in
// [queries], alone or with more terms; an unknown name, and a bad entry,
// are one line with exit 2, before Redis is read.
func TestJobsWhereSaved(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	for i, j := range []struct{ name, err string }{
		{"charge_card", "gateway timeout"}, {"charge_card", "gateway reset"}, {"charge_card", "card declined"}, {"send_mail", "gateway timeout"},
	} {
		redistest.Do(t, c, "ZADD", "work:dead", now-int64(i), `{"name":"`+j.name+`","id":"d`+string(rune('0'+i))+`","t":1,"args":{},"fails":3,"err":"`+j.err+`","failed_at":1}`)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[queries]\noutage = 'job:charge_card err~\"gateway (timeout|reset)\" since:1h'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
	if err := os.MkdirAll(filepath.Join(dir, "workq-tui"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(cfg, filepath.Join(dir, "workq-tui", "config.toml")); err != nil {
		t.Fatal(err)
	}
	addr := "--redis=" + srv.Addr()
	out, stderr, code := runCLI(t, input{getenv: home}, addr, "--read-only", "jobs", "dead", "--where", "@outage")
	if code != 0 || strings.Count(out, "charge_card") != 2 || strings.Contains(out, "declined") {
		t.Fatalf("@outage: exit %d, stderr %q, out:\n%s", code, stderr, out)
	}
	out, _, code = runCLI(t, input{getenv: home}, addr, "--read-only", "jobs", "dead", "--where", "@outage err:reset")
	if code != 0 || strings.Count(out, "charge_card") != 1 {
		t.Fatalf("@outage err:reset: exit %d, out:\n%s", code, out)
	}
	_, stderr, code = runCLI(t, input{getenv: home}, addr, "--read-only", "jobs", "dead", "--where", "@outgae")
	if code != ExitUsage || errorLines(stderr) != 1 || !strings.Contains(stderr, `unknown saved query "@outgae": the saved ones are @outage (`+filepath.Join(dir, "workq-tui", "config.toml")+`)`) {
		t.Fatalf("unknown name: exit %d, stderr %q", code, stderr)
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[queries]\nok = 'job:x'\noutage = 'erorr:gateway'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runCLI(t, input{getenv: home}, addr, "--read-only", "--config", bad, "jobs", "dead", "--where", "@ok")
	if code != ExitUsage || errorLines(stderr) != 1 || !strings.Contains(stderr, bad+":3: queries.outage: bad query: unknown term") {
		t.Fatalf("bad entry: exit %d, stderr %q", code, stderr)
	}
}

// TestCompleteSavedQuery: --where @<TAB> offers the saved queries of the
// file --config names, each with its query as the description.
func TestCompleteSavedQuery(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(cfg, []byte("[queries]\noutage = 'job:charge_card err:gateway'\nold-mail = 'job:send_*'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vals, _ := completeValues(t, input{}, "--config", cfg, "jobs", "dead", "--where", "@")
	if strings.Join(vals, " ") != "@old-mail @outage" {
		t.Errorf("--where @: %q", vals)
	}
	vals, _ = completeValues(t, input{}, "--config", cfg, "jobs", "dead", "--where", "@ou")
	if strings.Join(vals, " ") != "@outage" {
		t.Errorf("--where @ou: %q", vals)
	}
}
