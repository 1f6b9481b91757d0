package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
)

func TestSnapshotOverTargets(t *testing.T) {
	tt := startTwoTargets(t)
	// A listener that accepts and never answers: a target that hangs.
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16)
	t.Cleanup(func() {
		_ = hang.Close()
		for len(held) > 0 {
			_ = (<-held).Close()
		}
	})
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			select {
			case held <- c:
			default:
				_ = c.Close()
			}
		}
	}()
	cfg := writeConfig(t, 0o600, fmt.Sprintf(`
[targets.a]
redis = "%s"
namespace = "alpha"

[targets.b]
redis = "%s"
namespace = "beta"

[targets.down]
redis = "127.0.0.1:1"

[targets.hung]
redis = "%s"
timeout = "300ms"

[targets.nopw]
redis = "%[1]s"
password_env = "NOPW_PASSWORD"
`, tt.a.Addr(), tt.b.Addr(), hang.Addr()))

	type entry struct {
		Target    string `json:"target"`
		Error     string `json:"error"`
		Namespace string `json:"namespace"`
		Pools     []struct {
			ID string `json:"id"`
		} `json:"pools"`
		Findings []any `json:"findings"`
	}
	run := func(t *testing.T, code int, args ...string) []entry {
		t.Helper()
		stdout, stderr, got := runCLI(t, input{}, append([]string{"--config", cfg, "snapshot", "--json"}, args...)...)
		if got != code {
			t.Fatalf("exit %d, want %d; stderr %q", got, code, stderr)
		}
		var doc struct {
			Targets []entry `json:"targets"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		return doc.Targets
	}

	t.Run("both up, findings", func(t *testing.T) {
		got := run(t, ExitFindings, "-t", "b", "-t", "a")
		if len(got) != 2 || got[0].Target != "b" || got[1].Target != "a" {
			t.Fatalf("want b then a: %+v", got)
		}
		if got[0].Namespace != "beta" || len(got[0].Pools) != 1 || got[0].Pools[0].ID != poolB || len(got[0].Findings) == 0 {
			t.Errorf("b = %+v", got[0])
		}
		if got[1].Namespace != "alpha" || len(got[1].Pools) != 1 || got[1].Pools[0].ID != poolA {
			t.Errorf("a = %+v", got[1])
		}
	})
	t.Run("one down, one hung: exit 1, the other read", func(t *testing.T) {
		got := run(t, ExitError, "-t", "down", "-t", "a", "-t", "hung")
		if len(got) != 3 {
			t.Fatalf("want 3 entries: %+v", got)
		}
		if got[0].Target != "down" || !strings.Contains(got[0].Error, "127.0.0.1:1") || got[0].Namespace != "" {
			t.Errorf("down = %+v", got[0])
		}
		if got[1].Target != "a" || got[1].Error != "" || len(got[1].Pools) != 1 || got[1].Pools[0].ID != poolA {
			t.Errorf("a = %+v", got[1])
		}
		if got[2].Target != "hung" || !strings.Contains(got[2].Error, hang.Addr().String()) {
			t.Errorf("hung = %+v", got[2])
		}
	})
	t.Run("a password that cannot be read fails its target only", func(t *testing.T) {
		got := run(t, ExitError, "-t", "nopw", "-t", "b")
		if len(got) != 2 || !strings.Contains(got[0].Error, "NOPW_PASSWORD is not set") || got[1].Namespace != "beta" {
			t.Errorf("%+v", got)
		}
	})
	t.Run("one error line names the targets not read", func(t *testing.T) {
		_, stderr, code := runCLI(t, input{}, "--config", cfg, "snapshot", "-t", "a", "-t", "down")
		if code != ExitError || errorLines(stderr) != 1 || !strings.Contains(stderr, "1 of 2 targets could not be read: down (") {
			t.Errorf("exit %d, %q", code, stderr)
		}
	})
	t.Run("text: one section per target", func(t *testing.T) {
		stdout, _, code := runCLI(t, input{}, "--config", cfg, "snapshot", "--wide", "-t", "a", "-t", "down", "-t", "b")
		if code != ExitError {
			t.Fatalf("exit %d", code)
		}
		re := regexp.MustCompile(`(?s)^=== TARGET a ===\nnamespace alpha .*` + poolA + `.*\n\n=== TARGET down ===\nerror: .*127\.0\.0\.1:1.*\n\n=== TARGET b ===\nnamespace beta .*` + poolB)
		if !re.MatchString(stdout) {
			t.Errorf("sections:\n%s", stdout)
		}
	})
	t.Run("the same target twice", func(t *testing.T) {
		_, stderr, code := runCLI(t, input{}, "--config", cfg, "snapshot", "-t", "a", "-t", "a")
		if code != ExitUsage || !strings.Contains(stderr, "given twice") {
			t.Errorf("exit %d, %q", code, stderr)
		}
	})
}

// With one target, snapshot prints what it prints with the same flags.
func TestSnapshotOneTargetAsToday(t *testing.T) {
	tt := startTwoTargets(t)
	clock := regexp.MustCompile(`redis time [^ ]+ [^ ]+ UTC|"redis_time": \d+|"heartbeat_age_seconds": [\d.]+|\d+m\d\ds`)
	for _, mode := range [][]string{nil, {"--json"}} {
		withTarget, _, c1 := runCLI(t, input{}, append([]string{"--config", tt.config, "-t", "a", "snapshot"}, mode...)...)
		withFlags, _, c2 := runCLI(t, input{}, append([]string{"--redis", tt.a.Addr(), "-n", "alpha", "snapshot"}, mode...)...)
		if c1 != ExitFindings || c2 != ExitFindings {
			t.Fatalf("%v: exit %d and %d, want 3", mode, c1, c2)
		}
		if a, b := clock.ReplaceAllString(withTarget, ""), clock.ReplaceAllString(withFlags, ""); a != b {
			t.Errorf("%v: --target prints\n%s\nthe flags print\n%s", mode, a, b)
		}
	}
}
