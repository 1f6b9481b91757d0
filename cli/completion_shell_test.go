package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// completionShell is how a test starts a shell with workq-tui's completion
// loaded and the prompt "PROMPT> ".
type completionShell struct {
	name  string
	argv  []string
	setup []string // lines typed before the test
	tabs  int      // tabs that list the candidates
}

func completionShells() []completionShell {
	return []completionShell{
		{"bash", []string{"bash", "--norc", "--noprofile", "-i"},
			[]string{"source <(workq-tui completion bash)"}, 2},
		{"zsh", []string{"zsh", "-f", "-i"},
			[]string{"autoload -U compinit && compinit -u", "source <(workq-tui completion zsh)"}, 1},
		{"fish", []string{"fish", "--no-config", "-i"},
			[]string{"function fish_prompt; echo -n 'PROMPT> '; end", "workq-tui completion fish | source"}, 1},
	}
}

// TestShellCompletion drives bash, zsh and fish in tmux: pause <TAB>
// offers the job names of the Redis behind the target, reap <TAB> the dead
// pool; with Redis closed or silent, tab leaves the line as it was and the
// shell takes the next key within the budget.
func TestShellCompletion(t *testing.T) {
	if testing.Short() {
		t.Skip("drives shells in tmux with the built binary")
	}
	bin := redistest.Binary(t)
	srv := completionRedis(t)
	config := t.TempDir()
	if err := os.MkdirAll(filepath.Join(config, "workq-tui"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "workq-tui", "config.toml"), []byte("[targets.local]\nredis = \""+srv.Addr()+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	closed := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.FreePort(t)))
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close() // never accepted: nothing answers

	for _, sh := range completionShells() {
		t.Run(sh.name, func(t *testing.T) {
			if _, err := exec.LookPath(sh.argv[0]); err != nil {
				t.Fatalf("%s is not installed; install it with `apt-get install -y %s` (or run `make deps`)", sh.argv[0], sh.argv[0])
			}
			env := []string{"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
				"XDG_CONFIG_HOME=" + config, "PS1=PROMPT> ", "PROMPT=PROMPT> ", "NO_COLOR=1"}
			s := redistest.StartTmux(t, 160, 20, env, sh.argv...)
			s.WaitFor(15*time.Second, "a prompt", func(screen string) bool { return strings.TrimSpace(screen) != "" })
			for _, line := range sh.setup {
				s.Keys(line, "Enter")
			}
			s.Keys("clear", "Enter")
			waitPrompt := func() {
				s.WaitFor(10*time.Second, "an empty prompt", func(screen string) bool {
					return strings.TrimSpace(screen) == "PROMPT>"
				})
			}
			waitPrompt()
			tab := func(n int) {
				for i := 0; i < n; i++ {
					s.Keys("Tab")
					time.Sleep(300 * time.Millisecond)
				}
			}
			reset := func() {
				s.Keys("C-u", "C-c")
				time.Sleep(200 * time.Millisecond)
				s.Keys("clear", "Enter")
				waitPrompt()
			}

			s.Keys("-l", "workq-tui -t local pause ")
			tab(sh.tabs)
			s.WaitText(10*time.Second, "mail", "ns:report")
			if screen := s.Screen(); strings.Contains(screen, "bad name") || strings.Contains(screen, "evil") {
				t.Errorf("offered a job name that is not safe to type:\n%s", screen)
			}
			reset()

			s.Keys("-l", "workq-tui --redis "+srv.Addr()+" reap ")
			tab(1)
			s.WaitText(10*time.Second, "reap "+compDeadPool)
			if strings.Contains(s.Screen(), compLivePool) {
				t.Errorf("offered the live pool:\n%s", s.Screen())
			}
			reset()

			// A word with ':' or '=' in it (bash splits its words there).
			for _, tc := range []struct{ typed, want string }{
				{"workq-tui -t local pause ns:", "pause ns:report"},
				{"workq-tui --theme=da", "--theme=dark"},
			} {
				s.Keys("-l", tc.typed)
				tab(1)
				s.WaitText(10*time.Second, tc.want)
				reset()
			}

			for _, down := range []string{closed, silent.Addr().String()} {
				typed := "workq-tui --redis " + down + " pause "
				s.Keys("-l", typed)
				before := s.WaitText(5*time.Second, strings.TrimSpace(typed))
				start := time.Now()
				tab(sh.tabs)
				// The shell takes the next key once the completion is (bash asks
				// once per tab, each within the budget)
				// over: the marker shows where the cursor was.
				s.Keys("-l", "Z")
				after := s.WaitText(10*time.Second, typed+"Z")
				t.Logf("%s: tab with Redis at %s down answered after %v (budget %v)", sh.name, down, time.Since(start).Round(time.Millisecond), completeBudget)
				if strings.TrimSpace(after) != strings.TrimSpace(before)+" Z" {
					t.Errorf("with Redis at %s down, tab changed the terminal:\nbefore:\n%s\nafter:\n%s", down, before, after)
				}
				reset()
			}
		})
	}
}
