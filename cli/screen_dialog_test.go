package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestScreenDialogConfirmsOnlyWhatWasDrawn: the built program in a
// terminal, on a real redis-server with two dead pools. Each sequence is
// one write to the terminal: whatever opens the dialog (a burst of plain
// keys, Enter on the command line, a control key bound to reap all), the y
// written with it is ignored and Redis is unchanged; a y written once the
// dialog has been on screen runs the action.
func TestScreenDialogConfirmsOnlyWhatWasDrawn(t *testing.T) {
	srv := redistest.Start(t)
	seedDeadPool(t, srv, "work", poolA, "mail")
	seedDeadPool(t, srv, "work", poolB, "send_email")
	k := redisq.NewKeys("work")
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "workq-tui"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[keys]\nreap_all = \"ctrl+x\"\n"
	if err := os.WriteFile(filepath.Join(home, "workq-tui", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := redistest.StartTmux(t, 120, 30, []string{"NO_COLOR=1", "XDG_CONFIG_HOME=" + home}, redistest.Binary(t),
		"--redis", srv.Addr(), "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	s.WaitText(15*time.Second, poolA, poolB)
	written := func() bool {
		return srv.Do("SCARD", k.WorkerPools()) != int64(2) || srv.Do("EXISTS", k.Paused("send_email")) != int64(0)
	}
	unchanged := func(what string) {
		t.Helper()
		if written() {
			t.Fatalf("%s: Redis changed: %v pools left (want 2), send_email paused: %v", what,
				srv.Do("SCARD", k.WorkerPools()), srv.Do("EXISTS", k.Paused("send_email")))
		}
	}
	for _, write := range []string{"xy", ":reap-all\ry", ":pause send_email\ry", "\x18y"} {
		s.Write(write)
		s.WaitFor(5*time.Second, "the y ignored, or a write", func(screen string) bool {
			return written() || strings.Contains(screen, "y: run it") && strings.Contains(screen, "y ignored")
		})
		unchanged(strconvQuote(write))
		s.Keys("n")
		s.WaitText(5*time.Second, "cancelled")
	}
	// The operator reads the dialog, then presses y.
	s.Write("\x18")
	s.WaitText(5*time.Second, "Reap 2 dead pools?")
	unchanged("the dialog open")
	s.WaitText(5*time.Second, "y: run it") // offered once the dialog has been on screen
	s.Write("y")
	deadline := time.Now().Add(10 * time.Second)
	for srv.Do("SCARD", k.WorkerPools()) != int64(0) {
		if time.Now().After(deadline) {
			t.Fatalf("y after the dialog was on screen did not reap:\n%s", s.Screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}

func strconvQuote(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r", `\r`), "\x18", `\x18`)
}
