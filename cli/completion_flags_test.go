package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// dashRedis holds values that read as flags: a job named like the
// --redis flag, one named -t, a dead job whose ID is --all, next to plain
// ones.
func dashRedis(t *testing.T) *redistest.Server {
	t.Helper()
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.KnownJobs(), "mail", "--redis=127.0.0.1:9", "-t", "=ls", "a^b")
	srv.Do("ZADD", k.Dead(), 100, `{"name":"mail","id":"--all","t":1}`, 200, `{"name":"mail","id":"d1","t":1}`)
	return srv
}

// TestCompletionNeverOffersAFlag: a value read from Redis that begins
// with '-' is never offered where a command reads it as a flag (an
// operand before "--", the word after a flag that takes a value); it is
// offered after "--" and inside a --flag= word, where it cannot be one.
func TestCompletionNeverOffersAFlag(t *testing.T) {
	srv := dashRedis(t)
	r := "--redis=" + srv.Addr()
	for _, tc := range []struct {
		name        string
		words       []string
		want, never []string
	}{
		{"operand", []string{r, "pause", ""}, []string{"mail"}, []string{"--redis=127.0.0.1:9", "-t", "=ls", "a^b"}},
		{"operand after --", []string{r, "pause", "--", ""}, []string{"mail", "--redis=127.0.0.1:9", "-t"}, []string{"=ls"}},
		{"job id", []string{r, "jobs", "dead", "delete", ""}, []string{"d1"}, []string{"--all"}},
		{"job id after --", []string{r, "jobs", "dead", "delete", "--", ""}, []string{"d1", "--all"}, nil},
		{"flag value", []string{r, "jobs", "dead", "--job", ""}, []string{"mail"}, []string{"--redis=127.0.0.1:9", "-t"}},
		{"flag value in its word", []string{r, "jobs", "dead", "--job="}, []string{"--job=mail", "--job=--redis=127.0.0.1:9"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := completeValues(t, input{}, tc.words...)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q: %q not offered in %q", tc.words, w, got)
				}
			}
			for _, w := range tc.never {
				if slices.Contains(got, w) {
					t.Errorf("%q: %q offered in %q", tc.words, w, got)
				}
			}
		})
	}
}

// TestShellCompletionNeverInsertsAFlag: the same in real bash, zsh and
// fish in tmux. pause <TAB> completes the one plain job name and never
// puts the job named --redis=... on the line; jobs dead delete <TAB>
// completes d1, never --all; after "--" the dashed values are offered.
func TestShellCompletionNeverInsertsAFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("drives shells in tmux with the built binary")
	}
	bin := redistest.Binary(t)
	srv := dashRedis(t)
	for _, sh := range completionShells() {
		t.Run(sh.name, func(t *testing.T) {
			if _, err := exec.LookPath(sh.argv[0]); err != nil {
				t.Fatalf("%s is not installed; install it with `apt-get install -y %s` (or run `make deps`)", sh.argv[0], sh.argv[0])
			}
			env := []string{"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
				"XDG_CONFIG_HOME=" + t.TempDir(), "PS1=PROMPT> ", "PROMPT=PROMPT> ", "NO_COLOR=1"}
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
			r := "workq-tui --redis " + srv.Addr() + " "
			for _, tc := range []struct{ typed, want, never string }{
				{r + "pause ", "pause mail", "--redis=127.0.0.1:9"},
				{r + "jobs dead delete ", "delete d1", "--all"},
			} {
				s.Keys("-l", tc.typed)
				tab(1) // one candidate is left: every shell inserts it
				screen := s.WaitText(10*time.Second, tc.want)
				if strings.Contains(screen, tc.never) {
					t.Errorf("%q<TAB> offered or inserted %q:\n%s", tc.typed, tc.never, screen)
				}
				reset()
			}
			// After "--" they are operands: offered.
			s.Keys("-l", r+"pause -- ")
			tab(sh.tabs)
			s.WaitText(10*time.Second, "--redis=127.0.0.1:9", "mail")
			reset()
		})
	}
}
