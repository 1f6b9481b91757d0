package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// writeConfig writes a configuration file with the given permission bits
// and returns its path.
func writeConfig(t *testing.T, mode os.FileMode, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// seedDeadPool leaves a pool that died holding one job of type job in ns,
// as gocraft/work leaves it, and returns the key of its in-progress list.
func seedDeadPool(t *testing.T, srv *redistest.Server, ns, pool, job string) string {
	t.Helper()
	k := redisq.NewKeys(ns)
	now := redistest.Time(t, srv.Dial()).Unix()
	srv.Do("SADD", k.KnownJobs(), job)
	srv.Do("SADD", k.WorkerPools(), pool)
	srv.Do("HSET", k.Heartbeat(pool), "heartbeat_at", now-600, "job_names", job, "host", "h-"+ns, "pid", 7)
	srv.Do("RPUSH", k.InProgress(job, pool), `{"name":"`+job+`","id":"j-`+ns+`","t":1,"args":{}}`)
	srv.Do("SET", k.Lock(job), 1)
	srv.Do("HSET", k.LockInfo(job), pool, 1)
	return k.InProgress(job, pool)
}

// twoTargets starts two Redis servers, each with a dead pool in its own
// namespace, and a configuration file naming them: a (alpha on the first)
// and b (beta on the second, read-only, dead_after 1m).
type twoTargets struct {
	a, b         *redistest.Server
	config       string
	listA, listB string
}

const (
	poolA = "aaaaaaaaaaaaaaaaaaaaaaa1"
	poolB = "bbbbbbbbbbbbbbbbbbbbbbb2"
)

func startTwoTargets(t *testing.T) *twoTargets {
	t.Helper()
	tt := &twoTargets{a: redistest.Start(t), b: redistest.Start(t)}
	tt.listA = seedDeadPool(t, tt.a, "alpha", poolA, "mail")
	tt.listB = seedDeadPool(t, tt.b, "beta", poolB, "sms")
	tt.config = writeConfig(t, 0o600, fmt.Sprintf(`
[targets.a]
redis = "%s"
namespace = "alpha"

[targets.b]
redis = "redis://%s/0"
namespace = "beta"
dead_after = "1m"
read_only = true
`, tt.a.Addr(), tt.b.Addr()))
	return tt
}

// dumps is the whole of both servers, to show that nothing changed.
func (tt *twoTargets) dumps(t *testing.T) string {
	t.Helper()
	return fmt.Sprint(redistest.Dump(t, tt.a.Dial(), "*"), redistest.Dump(t, tt.b.Dial(), "*"))
}

func TestTargetDrivesEveryCommand(t *testing.T) {
	tt := startTwoTargets(t)
	before := tt.dumps(t)
	cfg := "--config=" + tt.config
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		want, not []string
	}{
		{"snapshot a", []string{cfg, "-t", "a", "snapshot", "--wide"}, ExitFindings,
			[]string{"namespace alpha", poolA, "dead after 10s"}, []string{poolB}},
		{"snapshot b takes its dead_after", []string{cfg, "--target", "b", "snapshot", "--wide"}, ExitFindings,
			[]string{"namespace beta", poolB, "dead after 1m"}, []string{poolA}},
		{"snapshot --json b", []string{"snapshot", "--json", cfg, "--target=b"}, ExitFindings,
			[]string{`"namespace": "beta"`, poolB}, []string{poolA}},
		{"reap --dry-run a", []string{cfg, "-t", "a", "reap", "--all-dead", "--dry-run"}, ExitOK,
			[]string{poolA, "Dry run"}, []string{poolB}},
		{"reap --dry-run b", []string{cfg, "-t", "b", "reap", "--all-dead", "--dry-run"}, ExitOK,
			[]string{poolB, "Dry run"}, []string{poolA}},
		{"requeue --dry-run a", []string{cfg, "-t", "a", "requeue", "--dry-run", tt.listA}, ExitOK,
			[]string{"Dry run", "alpha:jobs:mail"}, []string{"beta"}},
		{"requeue --dry-run b", []string{cfg, "-t", "b", "requeue", "--dry-run", tt.listB}, ExitOK,
			[]string{"Dry run", "beta:jobs:sms"}, []string{"alpha"}},
		{"repair-locks --dry-run a", []string{cfg, "-t", "a", "repair-locks", "--dry-run", "mail"}, ExitOK,
			[]string{"mail"}, []string{"sms"}},
		{"repair-locks --dry-run b", []string{cfg, "-t", "b", "repair-locks", "--dry-run", "sms"}, ExitOK,
			[]string{"sms"}, []string{"mail"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, input{}, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q\n%s", code, tc.code, stderr, stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(stdout, n) {
					t.Errorf("output holds %q of the other target:\n%s", n, stdout)
				}
			}
		})
	}
	if after := tt.dumps(t); after != before {
		t.Errorf("a dry run changed Redis:\nbefore %s\nafter  %s", before, after)
	}
}

func TestFlagsOverrideTarget(t *testing.T) {
	tt := startTwoTargets(t)
	// Namespaces that are not empty, where the flags lead: beta on a's
	// Redis, alpha in its database 1.
	tt.a.Do("SADD", "beta:known_jobs", "mail")
	ca := tt.a.Dial()
	redistest.Do(t, ca, "SELECT", 1)
	redistest.Do(t, ca, "SADD", "alpha:known_jobs", "mail")
	cfg := "--config=" + tt.config
	for _, tc := range []struct {
		name      string
		args      []string
		want, not string
	}{
		// The address of b with the namespace of a.
		{"--redis", []string{cfg, "-t", "a", "--redis", tt.b.Addr(), "-n", "beta", "snapshot", "--wide"}, poolB, poolA},
		{"--namespace", []string{cfg, "-t", "a", "-n", "beta", "snapshot"}, "namespace beta", poolA},
		{"--dead-after", []string{cfg, "-t", "b", "--dead-after", "2s", "snapshot"}, "dead after 2s", "dead after 1m"},
		{"--db", []string{cfg, "-t", "a", "--db", "1", "snapshot"}, "POOLS (0)", poolA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, input{}, tc.args...)
			if code != ExitOK && code != ExitFindings {
				t.Fatalf("exit %d: %q", code, stderr)
			}
			if !strings.Contains(stdout, tc.want) || strings.Contains(stdout, tc.not) {
				t.Errorf("want %q and not %q in:\n%s", tc.want, tc.not, stdout)
			}
		})
	}
}

func TestReadOnlyTargetRefusesWrites(t *testing.T) {
	tt := startTwoTargets(t)
	before := tt.dumps(t)
	// c is read-only at an address where nothing listens: the refusal must
	// come before any connection.
	cfg := writeConfig(t, 0o600, fmt.Sprintf(`
[targets.b]
redis = "%s"
namespace = "beta"
read_only = true

[targets.c]
redis = "127.0.0.1:1"
read_only = true
`, tt.b.Addr()))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"reap --yes", []string{"-t", "b", "reap", "--all-dead", "--yes"}},
		{"reap --yes, --read-only=false does not lift it", []string{"-t", "b", "--read-only=false", "reap", poolB, "--yes"}},
		{"reap --yes, before connecting", []string{"-t", "c", "reap", "--all-dead", "--yes"}},
		{"requeue --yes", []string{"-t", "b", "requeue", "--yes", tt.listB}},
		{"repair-locks --yes", []string{"-t", "b", "repair-locks", "--yes", "sms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, input{}, append([]string{"--config", cfg}, tc.args...)...)
			if code != ExitError || !strings.Contains(stderr, "is read-only (read_only = true in "+cfg) {
				t.Fatalf("exit %d, stderr %q; want 1 and the target's read_only", code, stderr)
			}
			if n := strings.Count(stderr, "\n"); n != 1 {
				t.Errorf("%d lines on stderr, want 1: %q", n, stderr)
			}
		})
	}
	if after := tt.dumps(t); after != before {
		t.Errorf("a refused write changed Redis:\nbefore %s\nafter  %s", before, after)
	}
	// The same write against a target without read_only goes through.
	if _, stderr, code := runCLI(t, input{}, "--config", tt.config, "-t", "a", "reap", "--all-dead", "--yes"); code != ExitOK {
		t.Fatalf("reap on a: exit %d, %q", code, stderr)
	}
}

func TestConfigFileRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mode  os.FileMode
		text  string
		args  []string
		lines int
		want  []string
	}{
		{"password in the file", 0o600, "[targets.p]\nredis = \"127.0.0.1:1\"\npassword = \"hunter2\"\n",
			[]string{"snapshot", "-t", "p"}, 1, []string{":3: ", "password_file", "password_env"}},
		{"password in the URL", 0o600, "[targets.p]\nredis = \"redis://u:hunter2@127.0.0.1:1\"\n",
			[]string{"snapshot", "-t", "p"}, 1, []string{":2: ", "password_file"}},
		{"password in the URL's query", 0o600, "[targets.p]\nredis = \"redis://127.0.0.1:1/0?password=hunter2\"\n",
			[]string{"snapshot", "-t", "p"}, 1, []string{":2: ", "targets.p.redis", "password_file"}},
		{"password in the URL's query on the command line", 0o600, "",
			[]string{"snapshot", "--redis", "redis://127.0.0.1:1/0?password=hunter2"}, 1, []string{"--redis URL holds a password", "REDIS_PASSWORD"}},
		{"ctrl+m as a key", 0o600, "[keys]\nreap = \"ctrl+m\"\n",
			[]string{"snapshot", "--redis", "127.0.0.1:1"}, 1, []string{":2: ", "keys.reap", "terminals send it as enter"}},
		{"a bidi override as a key", 0o600, "[keys]\n\nreap = [\"x\", \"\u202e\"]\n",
			[]string{"snapshot", "--redis", "127.0.0.1:1"}, 1, []string{":3: ", "keys.reap", `"\u202e" holds U+202E`}},
		{"world-readable with password_file", 0o644, "[targets.p]\nredis = \"127.0.0.1:1\"\npassword_file = \"/nonexistent/pw\"\n",
			[]string{"snapshot", "-t", "p"}, 1, []string{":3: ", "other users can read it", "chmod 600"}},
		{"group-readable with password_env", 0o640, "[targets.p]\npassword_env = \"P_PW\"\n",
			[]string{"reap", "--all-dead", "--dry-run", "-t", "p"}, 1, []string{":2: ", "chmod 600"}},
		{"two problems, two lines", 0o600, "[targets.p]\ncolour = \"red\"\ndb = \"one\"\n",
			[]string{"snapshot", "-t", "p"}, 2, []string{":2: ", "unknown key", ":3: ", "whole number"}},
		{"unknown target", 0o600, "[targets.p]\nredis = \"127.0.0.1:1\"\n",
			[]string{"snapshot", "-t", "q"}, 1, []string{`target "q"`, "it defines p"}},
		{"--target twice for one target", 0o600, "[targets.p]\n[targets.q]\n",
			[]string{"reap", "--all-dead", "-t", "p", "-t", "q"}, 1, []string{"one target"}},
		{"--demo with --target", 0o600, "[targets.p]\n",
			[]string{"snapshot", "--demo", "-t", "p"}, 1, []string{"--demo and --target"}},
		{"problems even without --target", 0o600, "[targets.p]\nreadonly = true\n",
			[]string{"snapshot", "--redis", "127.0.0.1:1"}, 1, []string{":2: ", "unknown key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, tc.mode, tc.text)
			stdout, stderr, code := runCLI(t, input{}, append([]string{"--config", path}, tc.args...)...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want 2; stderr %q\n%s", code, stderr, stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %q", w, stderr)
				}
			}
			if n := errorLines(stderr); n != tc.lines {
				t.Errorf("%d error lines, want %d: %q", n, tc.lines, stderr)
			}
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr shows the password: %q", stderr)
			}
		})
	}
}

func TestTargetPasswordSources(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "s3cret-pw")
	{ // a namespace that is not empty
		c := srv.Dial()
		redistest.Do(t, c, "AUTH", "s3cret-pw")
		redistest.Do(t, c, "SADD", "work:known_jobs", "mail")
	}
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("s3cret-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, 0o600, fmt.Sprintf(`
[targets.byfile]
redis = "%[1]s"
password_file = "%[2]s"

[targets.byenv]
redis = "%[1]s"
password_env = "BYENV_PW"

[targets.bytilde]
redis = "%[1]s"
password_file = "~/pw"
`, srv.Addr(), pw))
	env := func(k string) string {
		switch k {
		case "BYENV_PW":
			return "s3cret-pw"
		case "HOME":
			return filepath.Dir(pw)
		}
		return ""
	}
	for _, name := range []string{"byfile", "byenv", "bytilde"} {
		if _, stderr, code := runCLI(t, input{getenv: env}, "--config", cfg, "-t", name, "snapshot"); code != ExitOK {
			t.Errorf("%s: exit %d, %q", name, code, stderr)
		}
	}
	// The variable the target names is not set: one line, no connection.
	home := func(k string) string {
		if k == "HOME" {
			return filepath.Dir(pw)
		}
		return ""
	}
	_, stderr, code := runCLI(t, input{getenv: home}, "--config", cfg, "-t", "byenv", "snapshot")
	if code != ExitError || !strings.Contains(stderr, "BYENV_PW is not set") || errorLines(stderr) != 1 {
		t.Errorf("unset password_env: exit %d, %q", code, stderr)
	}
}

func TestDefaultConfigPath(t *testing.T) {
	srv := redistest.Start(t)
	srv.Do("SADD", "work:known_jobs", "mail") // a namespace that is not empty
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "workq-tui"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workq-tui", "config.toml"), []byte("[targets.home]\nredis = \""+srv.Addr()+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
	if _, stderr, code := runCLI(t, input{getenv: env}, "-t", "home", "snapshot"); code != ExitOK {
		t.Errorf("target of the default file: exit %d, %q", code, stderr)
	}
	// No file at the default path: --target names nothing, one line.
	empty := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return t.TempDir()
		}
		return ""
	}
	if _, stderr, code := runCLI(t, input{getenv: empty}, "-t", "home", "snapshot"); code != ExitUsage || !strings.Contains(stderr, "no configuration file") {
		t.Errorf("no default file: exit %d, %q", code, stderr)
	}
	// Without --target the default file is not read.
	if _, stderr, code := runCLI(t, input{getenv: empty}, "--redis", srv.Addr(), "snapshot", "--json"); code != ExitOK {
		t.Errorf("flags alone: exit %d, %q", code, stderr)
	}
}

// The screen opened on a read-only target starts read-only (its badge
// says so); on another target it does not.
func TestScreenOnReadOnlyTarget(t *testing.T) {
	tt := startTwoTargets(t)
	bin := redistest.Binary(t)
	s := redistest.StartTmux(t, 120, 30, nil, bin, "--config", tt.config, "-t", "b")
	s.WaitText(15*time.Second, "[READ-ONLY]", poolB)
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")

	s = redistest.StartTmux(t, 120, 30, nil, bin, "--config", tt.config, "-t", "a")
	if screen := s.WaitText(15*time.Second, poolA); strings.Contains(screen, "READ-ONLY") {
		t.Errorf("target a is not read-only:\n%s", screen)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
