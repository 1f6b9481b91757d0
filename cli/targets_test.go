package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTargetsListsWithoutPasswords(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "prod.pass")
	if err := os.WriteFile(pw, []byte("file-s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, 0o600, `
[targets.prod-eu]
redis = "rediss://monitor@redis-eu.internal:6380/2"
namespace = "myapp"
password_file = "`+pw+`"
read_only = true

[targets.staging]
redis = "redis-staging:6379"
password_env = "STAGING_PW"

[targets.local]
`)
	env := func(k string) string {
		if k == "STAGING_PW" || k == "REDIS_PASSWORD" {
			return "env-s3cret"
		}
		return ""
	}
	stdout, stderr, code := runCLI(t, input{getenv: env}, "targets", "--config", cfg)
	if code != ExitOK {
		t.Fatalf("exit %d: %q", code, stderr)
	}
	for _, want := range []string{
		"(3 targets)",
		"prod-eu", "monitor@redis-eu.internal:6380", "myapp", "2", "read-only", "tls", "file " + pw,
		"staging", "redis-staging:6379", "env STAGING_PW",
		"local", "localhost:6379",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("targets lacks %q:\n%s", want, stdout)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[2], "local ") || !strings.HasPrefix(lines[3], "prod-eu ") {
		t.Errorf("want a heading, a header and the three targets in name order:\n%s", stdout)
	}

	js, stderr, code := runCLI(t, input{getenv: env}, "targets", "--json", "--config", cfg)
	if code != ExitOK {
		t.Fatalf("--json: exit %d: %q", code, stderr)
	}
	var got struct {
		File    string       `json:"file"`
		Targets []targetJSON `json:"targets"`
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	if got.File != cfg || len(got.Targets) != 3 {
		t.Fatalf("--json: %+v", got)
	}
	prod := got.Targets[1]
	if prod.Name != "prod-eu" || prod.Address != "redis-eu.internal:6380" || prod.DB != 2 || prod.User != "monitor" ||
		!prod.TLS || !prod.ReadOnly || prod.PasswordFile != pw || prod.Namespace != "myapp" {
		t.Errorf("prod-eu = %+v", prod)
	}
	if got.Targets[2].PasswordEnv != "STAGING_PW" || got.Targets[2].ReadOnly {
		t.Errorf("staging = %+v", got.Targets[2])
	}
	one, _, code := runCLI(t, input{getenv: env}, "targets", "--config", cfg, "-t", "staging")
	if code != ExitOK || !strings.Contains(one, "(1 target)") || !strings.Contains(one, "staging") || strings.Contains(one, "prod-eu") {
		t.Errorf("-t staging: exit %d\n%s", code, one)
	}
	_, stderr, code = runCLI(t, input{getenv: env}, "targets", "--config", cfg, "-t", "nope")
	if code != ExitUsage || !strings.Contains(stderr, "it defines local, prod-eu, staging") {
		t.Errorf("-t nope: exit %d, %q", code, stderr)
	}
	for _, out := range []string{stdout, js} {
		if strings.Contains(out, "s3cret") {
			t.Errorf("a password is shown:\n%s", out)
		}
	}
}

func TestTargetsWithoutFile(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
	stdout, stderr, code := runCLI(t, input{getenv: env}, "targets")
	if code != ExitOK || !strings.Contains(stdout, "No configuration file at "+filepath.Join(dir, "workq-tui", "config.toml")) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, stderr, code = runCLI(t, input{getenv: env}, "targets", "--config", filepath.Join(dir, "missing.toml"))
	if code != ExitUsage || !strings.Contains(stderr, "missing.toml") || errorLines(stderr) != 1 {
		t.Errorf("missing --config: exit %d, %q", code, stderr)
	}
}

// TestTargetsShowsSentinel: a target behind Redis Sentinel is listed with
// its sentinels and master name in place of an address it does not use,
// and where its Sentinel password comes from.
func TestTargetsShowsSentinel(t *testing.T) {
	cfg := writeConfig(t, 0o600, `
[targets.ha]
sentinel = ["s1.internal:26379", "s2.internal:26379"]
sentinel_master = "jobs"
sentinel_password_env = "HA_SENTINEL_PW"
read_only = true
replica = true
namespace = "myapp"
`)
	stdout, stderr, code := runCLI(t, input{}, "targets", "--config", cfg)
	if code != ExitOK {
		t.Fatalf("exit %d: %q", code, stderr)
	}
	for _, want := range []string{"sentinel jobs via s1.internal:26379,s2.internal:26379 (replica)", "sentinel: env HA_SENTINEL_PW"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("targets lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "localhost:6379") {
		t.Errorf("targets shows the unused default address:\n%s", stdout)
	}
	js, stderr, code := runCLI(t, input{}, "targets", "--json", "--config", cfg)
	if code != ExitOK {
		t.Fatalf("--json: exit %d: %q", code, stderr)
	}
	var got struct {
		Targets []targetJSON `json:"targets"`
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	if len(got.Targets) != 1 || got.Targets[0].Sentinel == nil || got.Targets[0].Address != "" {
		t.Fatalf("--json: %s", js)
	}
	sn := got.Targets[0].Sentinel
	if sn.Master != "jobs" || len(sn.Addresses) != 2 || !sn.Replica || sn.PasswordEnv != "HA_SENTINEL_PW" {
		t.Errorf("sentinel = %+v", sn)
	}
}
