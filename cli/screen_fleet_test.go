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

// fleetRowFields are the fields of the fleet row of target name on screen
// (name, state, age, ...), nil when the screen has no such row.
func fleetRowFields(screen, name string) []string {
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "> "))
		if len(f) >= 3 && f[0] == name {
			return f
		}
	}
	return nil
}

// Two --target open the fleet screen, a row per target; so do
// --all-targets and --redis/--namespace pairs (named by address and
// namespace); one --target keeps the screen of one Redis.
func TestScreenFleetOfTwoTargets(t *testing.T) {
	tt := startTwoTargets(t)
	bin := redistest.Binary(t)
	for _, tc := range []struct {
		args  []string
		names [2]string
	}{
		{[]string{"-t", "a", "-t", "b"}, [2]string{"a", "b"}},
		{[]string{"--all-targets"}, [2]string{"a", "b"}},
		{[]string{"--redis", tt.a.Addr(), "-n", "alpha", "--redis", tt.b.Addr(), "--namespace", "beta"},
			[2]string{tt.a.Addr() + "/alpha", tt.b.Addr() + "/beta"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			argv := append([]string{bin, "--config", tt.config}, tc.args...)
			s := redistest.StartTmux(t, 140, 30, []string{"NO_COLOR=1"}, argv...)
			screen := s.WaitFor(15*time.Second, "both targets polled", func(screen string) bool {
				a, b := fleetRowFields(screen, tc.names[0]), fleetRowFields(screen, tc.names[1])
				return a != nil && b != nil && a[1] == "ok" && b[1] == "ok"
			})
			if !strings.Contains(screen, "2 targets") {
				t.Errorf("no fleet header:\n%s", screen)
			}
			s.Keys("q")
			s.WaitText(5*time.Second, "EXITED 0")
		})
	}
	s := redistest.StartTmux(t, 140, 30, []string{"NO_COLOR=1"}, bin, "--config", tt.config, "-t", "a")
	if screen := s.WaitText(15*time.Second, poolA); strings.Contains(screen, "targets") {
		t.Errorf("one target opened the fleet:\n%s", screen)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}

// Several targets that cannot go together are refused with one line,
// before the terminal or Redis is looked at; a command of one target refuses
// a repeated --redis.
func TestScreenFleetRefusals(t *testing.T) {
	tt := startTwoTargets(t)
	empty := writeConfig(t, 0o600, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", tt.config, "--all-targets", "-t", "a"}, "--all-targets and --target exclude each other"},
		{[]string{"--config", empty, "--all-targets"}, "has no targets"},
		{[]string{"--config", tt.config, "-t", "a", "-t", "b", "--redis", "h:1", "--redis", "h:2"}, "exclude each other"},
		{[]string{"--redis", "h:1", "--redis", "h:2", "-n", "a", "-n", "b", "-n", "c"}, "give them in pairs"},
		{[]string{"--redis", "h:1", "--redis", "h:1"}, "is given twice"},
		{[]string{"--demo", "-n", "a", "-n", "b"}, "--demo"},
		{[]string{"--config", tt.config, "-t", "a", "-t", "b", "--sentinel", "h:1", "--sentinel-master", "m"}, "--sentinel"},
		{[]string{"--redis", "h:1", "--redis", "h:2", "--dead-after", "0s"}, "--dead-after must be positive"},
		{[]string{"--redis", "h:1", "--redis", "h:2", "snapshot"}, "this command works on one target"},
		{[]string{"-n", "a", "-n", "b", "reap", "--all-dead"}, "this command works on one target"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := runCLI(t, input{}, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) || errorLines(stderr) != 1 {
				t.Fatalf("exit %d, stderr %q; want 2 and one line with %q", code, stderr, tc.want)
			}
		})
	}
}

// Three targets: one stopped, one kept busy by DEBUG SLEEP, one live. The
// live one keeps updating while the others are marked; enter, X, y in the
// live one reaps there only, and the audit line names it.
func TestScreenFleetStoppedSlowAndLive(t *testing.T) {
	live := redistest.Start(t)
	slow := redistest.Start(t, redistest.DebugArgs()...)
	stopped := redistest.Start(t)
	liveList := seedDeadPool(t, live, "work", poolA, "mail")
	slowList := seedDeadPool(t, slow, "work", poolB, "sms")
	stopped.Stop()
	cfg := writeConfig(t, 0o600, fmt.Sprintf(`
[targets.live]
redis = "%s"

[targets.slow]
redis = "%s"

[targets.stopped]
redis = "%s"
`, live.Addr(), slow.Addr(), stopped.Addr()))
	slowBefore := fmt.Sprint(redistest.Dump(t, slow.Dial(), "*"))
	stopStall := slow.Stall(t, 3*time.Second)
	auditLog := filepath.Join(t.TempDir(), "audit.log")

	bin := redistest.Binary(t)
	s := redistest.StartTmux(t, 140, 30, []string{"NO_COLOR=1"}, bin, "--config", cfg,
		"--all-targets", "--interval", "500ms", "--audit-log", auditLog)
	s.WaitFor(15*time.Second, "live ok, slow SLOW, stopped DOWN", func(screen string) bool {
		l, sl, st := fleetRowFields(screen, "live"), fleetRowFields(screen, "slow"), fleetRowFields(screen, "stopped")
		return l != nil && sl != nil && st != nil && l[1] == "ok" && sl[1] == "SLOW" && st[1] == "DOWN"
	})
	// The live target keeps updating, every interval, while the slow one
	// is held: a job queued now shows within a few intervals, and its row
	// stays fresh.
	k := redisq.NewKeys("work")
	for range 7 {
		live.Do("LPUSH", k.Queue("mail"), `{"name":"mail","id":"q","t":1,"args":{}}`)
	}
	s.WaitFor(5*time.Second, "the live target's queue of 7", func(screen string) bool {
		l := fleetRowFields(screen, "live")
		return l != nil && strings.Contains(strings.Join(l, " "), " 7 ")
	})
	// And again, while the slow one is still held: one more job shows on
	// the live row at a moment when the slow row is marked SLOW (a
	// condition waited on, not a state sampled after a sleep: between two
	// of the stall's sleeps a poll of the slow target may get through).
	live.Do("LPUSH", k.Queue("mail"), `{"name":"mail","id":"q8","t":1,"args":{}}`)
	s.WaitFor(10*time.Second, "the live target's queue of 8 while slow is SLOW", func(screen string) bool {
		l, sl := fleetRowFields(screen, "live"), fleetRowFields(screen, "slow")
		return l != nil && sl != nil && l[1] == "ok" && sl[1] == "SLOW" && strings.Contains(strings.Join(l, " "), " 8 ")
	})

	// Into the live target: reap all there.
	s.WaitFor(10*time.Second, "the cursor on live", func(screen string) bool {
		for _, l := range strings.Split(screen, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "> live ") {
				return true
			}
		}
		s.Keys("j")
		time.Sleep(200 * time.Millisecond)
		return false
	})
	s.Keys("Enter")
	s.WaitText(5*time.Second, "fleet › live", poolA)
	s.Keys("X")
	s.WaitText(5*time.Second, "live: ", "y: run it")
	s.Keys("y")
	s.WaitText(10*time.Second, "reaped 1 pool")
	s.Keys("Escape")
	s.WaitText(5*time.Second, "3 targets")
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")

	if n := live.Do("LLEN", liveList).(int64); n != 0 {
		t.Errorf("live: %s holds %d jobs after the reap", liveList, n)
	}
	if n := live.Do("SISMEMBER", k.WorkerPools(), poolA).(int64); n != 0 {
		t.Errorf("live: the dead pool is still in the pool set")
	}
	stopStall()
	if after := fmt.Sprint(redistest.Dump(t, slow.Dial(), "*")); after != slowBefore {
		t.Errorf("the slow target changed:\nbefore %s\nafter  %s", slowBefore, after)
	}
	if n := slow.Do("LLEN", slowList).(int64); n != 1 {
		t.Errorf("slow: %s holds %d jobs, want its 1", slowList, n)
	}
	b, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "target=live ") || !strings.Contains(lines[0], "action=reap") ||
		!strings.Contains(lines[0], "redis="+live.Addr()) {
		t.Errorf("audit log %q; want one reap line naming target live", b)
	}
}
