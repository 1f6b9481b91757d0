package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestShellCompletionJournalNames drives bash, zsh and fish in tmux: with a
// journal file named `20991231-000000-001<ESC>]0;T<BEL>$(touch x).wqj`
// beside a real one, undo <TAB> and history <TAB> offer the real action's
// ID only: nothing runs (no file x appears), no escape reaches the screen.
func TestShellCompletionJournalNames(t *testing.T) {
	if testing.Short() {
		t.Skip("drives shells in tmux with the built binary")
	}
	bin := redistest.Binary(t)
	state := t.TempDir()
	dir := journal.Dir{Path: filepath.Join(state, "workq-tui", "journal")}
	id := plantUnpause(t, dir, "127.0.0.1:1", "work", "work:jobs:mail:paused", "1")
	real, err := os.ReadFile(dir.File(id))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir.Path, "20991231-000000-001\x1b]0;T\a$(touch x).wqj"), real, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sh := range completionShells() {
		t.Run(sh.name, func(t *testing.T) {
			cwd := t.TempDir()
			env := []string{"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
				"XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + t.TempDir(), "PS1=PROMPT> ", "PROMPT=PROMPT> ", "NO_COLOR=1"}
			s := redistest.StartTmux(t, 160, 20, env, sh.argv...)
			s.WaitFor(15*time.Second, "a prompt", func(screen string) bool { return strings.TrimSpace(screen) != "" })
			for _, line := range append(sh.setup, "cd "+cwd) {
				s.Keys(line, "Enter")
			}
			for _, cmd := range []string{"undo", "history"} {
				s.Keys("clear", "Enter")
				s.WaitFor(10*time.Second, "an empty prompt", func(screen string) bool { return strings.TrimSpace(screen) == "PROMPT>" })
				s.Keys("-l", "workq-tui --redis 127.0.0.1:1 "+cmd+" ")
				for i := 0; i < sh.tabs; i++ {
					s.Keys("Tab")
					time.Sleep(300 * time.Millisecond)
				}
				screen := s.WaitText(10*time.Second, id)
				if strings.Contains(screen, "20991231") || strings.Contains(screen, "touch") {
					t.Errorf("%s: offered the foreign file:\n%s", cmd, screen)
				}
				s.Keys("C-u", "C-c")
				time.Sleep(200 * time.Millisecond)
			}
			if _, err := os.Stat(filepath.Join(cwd, "x")); !os.IsNotExist(err) {
				t.Fatalf("completion ran the command substitution in the file name: %v", err)
			}
		})
	}
}
