package pause_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// auditLines is the audit log's lines.
func auditLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// checkAudit checks that the audit log holds one line per write so far,
// the last one for verb on steady.
func checkAudit(t *testing.T, path string, n int, verb string) {
	t.Helper()
	lines := auditLines(t, path)
	if len(lines) != n || !strings.Contains(lines[n-1], " action="+verb+" targets=steady ") {
		t.Errorf("audit log after %d writes (the last a %s):\n%s", n, verb, strings.Join(lines, "\n"))
	}
}

// TestPauseCommandStopsOneJobType is TestPauseStopsOneJobType with the
// built program: `workq-tui pause --yes steady`, then `unpause --yes
// steady`, each one audit line.
func TestPauseCommandStopsOneJobType(t *testing.T) {
	bin := redistest.Binary(t)
	log := filepath.Join(t.TempDir(), "audit.log")
	writes := 0
	checkPauseStopsOneJobType(t, "conf-pause-cli", func(srv *redistest.Server, _ *redis.Pool, ns string, pause bool) {
		verb, done := "pause", "steady: paused\nDone: 1 job type paused.\n"
		if !pause {
			verb, done = "unpause", "steady: unpaused\nDone: 1 job type unpaused.\n"
		}
		r := redistest.Run(t, bin, nil, "--redis", srv.Addr(), "-n", ns, "--audit-log", log, verb, "--yes", "steady")
		if r.Code != 0 || !strings.HasSuffix(r.Stdout, done) {
			t.Fatalf("%s --yes steady: exit %d\nstdout:\n%s\nstderr:\n%s", verb, r.Code, r.Stdout, r.Stderr)
		}
		writes++
		checkAudit(t, log, writes, verb)
	})
}

// TestScreenPauseInTmux is TestPauseStopsOneJobType with the built
// program's screen in a terminal: p and y on steady in the Job types view
// pause it, p and y again unpause it, each one audit line.
func TestScreenPauseInTmux(t *testing.T) {
	bin := redistest.Binary(t)
	log := filepath.Join(t.TempDir(), "audit.log")
	var s *redistest.Tmux
	writes := 0
	checkPauseStopsOneJobType(t, "conf-pause-tmux", func(srv *redistest.Server, _ *redis.Pool, ns string, pause bool) {
		if s == nil {
			s = redistest.StartTmux(t, 100, 30, []string{"NO_COLOR=1"}, bin,
				"--redis", srv.Addr(), "-n", ns, "--interval", "250ms", "--audit-log", log)
			s.WaitText(15*time.Second, "2 job types")
			s.Keys("Tab")
			s.Keys("G") // steady, the last of other and steady
			s.WaitText(10*time.Second, "[Job types]", "p pause")
		}
		verb := "pause"
		if pause {
			s.Keys("p")
			s.WaitText(10*time.Second, "Pause steady?", "workers stop taking new steady jobs", "y: run it")
			s.Keys("y")
			s.WaitText(10*time.Second, "paused steady", "1 paused")
		} else {
			verb = "unpause"
			s.WaitText(10*time.Second, "p unpause")
			s.Keys("p")
			s.WaitText(10*time.Second, "Unpause steady?", "workers start taking steady jobs again", "y: run it")
			s.Keys("y")
			s.WaitText(10*time.Second, "unpaused steady")
		}
		writes++
		checkAudit(t, log, writes, verb)
	})
}

// TestScreenReadOnlyHasNoPause: with --read-only the screen offers no p,
// the key does nothing, and Redis sees no write.
func TestScreenReadOnlyHasNoPause(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	const ns = "conf-pause-ro"
	srv.Do("SADD", ns+":known_jobs", "other", "steady")
	srv.Do("CONFIG", "RESETSTAT")
	s := redistest.StartTmux(t, 100, 30, []string{"NO_COLOR=1"}, redistest.Binary(t),
		"--redis", srv.Addr(), "-n", ns, "--interval", "250ms", "--read-only")
	s.WaitText(15*time.Second, "2 job types")
	s.Keys("Tab")
	s.Keys("G")
	screen := s.WaitText(10*time.Second, "[Job types]")
	if strings.Contains(screen, "p pause") {
		t.Errorf("read-only screen offers p:\n%s", screen)
	}
	s.Keys("p")
	time.Sleep(time.Second) // four polls
	if screen := s.Screen(); strings.Contains(screen, "Pause steady?") || strings.Contains(screen, "paused steady") {
		t.Errorf("p did something in read-only mode:\n%s", screen)
	}
	info, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"cmdstat_set:", "cmdstat_del:", "cmdstat_eval:", "cmdstat_evalsha:", "cmdstat_script:"} {
		if strings.Contains(info, w) {
			t.Errorf("read-only screen sent a write (%s):\n%s", w, info)
		}
	}
	if !strings.Contains(info, "cmdstat_exists:") {
		t.Errorf("the screen read no pause key:\n%s", info)
	}
}
