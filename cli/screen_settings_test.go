package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestScreenTakesKeysAndColumnsFromTheDefaultFile: the default
// configuration file's [keys] and [columns.pools] apply to a screen opened
// with --redis alone: reap all is on Z, the pools show no HOST:PID.
func TestScreenTakesKeysAndColumnsFromTheDefaultFile(t *testing.T) {
	srv := redistest.Start(t)
	seedDeadPool(t, srv, "work", poolA, "mail")
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "workq-tui"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[keys]\nreap_all = \"Z\"\n\n[columns.pools]\nhidden = [\"host:pid\", \"started\"]\n"
	if err := os.WriteFile(filepath.Join(home, "workq-tui", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := redistest.StartTmux(t, 120, 30, []string{"NO_COLOR=1", "XDG_CONFIG_HOME=" + home}, redistest.Binary(t),
		"--redis", srv.Addr(), "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	screen := s.WaitText(15*time.Second, poolA)
	if strings.Contains(screen, "HOST:PID") || strings.Contains(screen, "STARTED") || !strings.Contains(screen, "BEAT") {
		t.Errorf("hidden columns shown, or the others gone:\n%s", screen)
	}
	// X is no key now; the help it is followed by shows it opened nothing
	// (a dialog would have kept the help from opening) and lists Z.
	s.Keys("X", "?")
	screen = s.WaitText(5*time.Second, "close help")
	if strings.Contains(screen, "y: run it") || !strings.Contains(screen, "Z reap all") {
		t.Errorf("X opened a dialog, or the help lacks Z:\n%s", screen)
	}
	s.Keys("Escape") // alone: esc and a key at once read as alt+key
	s.WaitText(5*time.Second, "BEAT")
	s.Keys("Z")
	s.WaitText(5*time.Second, "y: run it")
	s.Keys("n")
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}

// TestScreenRefusesAClashingFile: a [keys] binding that clashes stops the
// screen with one line naming the file's line, before any terminal or
// Redis is needed.
func TestScreenRefusesAClashingFile(t *testing.T) {
	cfg := writeConfig(t, 0o600, "[keys]\nreap_all = \"x\"\n")
	stdout, stderr, code := runCLI(t, input{}, "--config", cfg, "--redis", "127.0.0.1:1")
	if code != ExitUsage || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], ":2: keys.reap_all: ") || !strings.Contains(lines[0], "also the key of reap") {
		t.Fatalf("stderr: %q", stderr)
	}
}
