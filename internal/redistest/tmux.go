package redistest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tmux is a program running in a detached tmux session on a tmux server of
// its own (its own socket), so a test never touches the user's tmux and
// parallel tests never touch each other's.
type Tmux struct {
	t      testing.TB
	dir    string
	socket string
}

// StartTmux runs argv in a width x height terminal with TERM=xterm-256color
// and the test's environment without REDIS_PASSWORD plus env. When the
// program ends, the pane prints "EXITED <status>" and stays open, so that
// a test can read its last screen and its exit status. The session is
// killed when the test ends. tmux missing fails the test with an install
// instruction.
func StartTmux(t testing.TB, width, height int, env []string, argv ...string) *Tmux {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a terminal in tmux: left out of go test -short, run by make test")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed; install it with `apt-get install -y tmux` (or run `make test`, which does)")
	}
	if len(argv) == 0 {
		t.Fatal("StartTmux: no program to run")
	}
	// The socket lives in a directory of its own; a short path, because a
	// Unix socket's path is limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "wqtmux")
	if err != nil {
		t.Fatalf("tmux socket directory: %v", err)
	}
	s := &Tmux{t: t, dir: dir, socket: filepath.Join(dir, "s")}
	// tmux sets its own TERM in the pane; env puts the test's back.
	line := "env TERM=xterm-256color"
	for _, kv := range env {
		line += " " + shellQuote(kv)
	}
	for _, a := range argv {
		line += " " + shellQuote(a)
	}
	line += `; echo "EXITED $?"; sleep 600`
	cmd := exec.Command("tmux", "-S", s.socket, "-f", "/dev/null", "new-session", "-d", "-s", "w",
		"-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "sh", "-c", line)
	cmd.Env = Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.Kill()
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(s.Kill)
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *Tmux) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// Keys sends tmux key names (Up, BTab, Enter, Escape, C-c) or literal text.
func (s *Tmux) Keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", "w"}, keys...)...)
}

// Write puts raw bytes on the program's input in one write, as a fast
// typist, a paste without bracketing, or a script would: tmux pastes its
// buffer with one write to the terminal. No bracketed paste, no newline
// rewriting.
func (s *Tmux) Write(raw string) {
	s.t.Helper()
	load := exec.Command("tmux", "-S", s.socket, "load-buffer", "-b", "raw", "-")
	load.Stdin = strings.NewReader(raw)
	if out, err := load.CombinedOutput(); err != nil {
		s.t.Fatalf("tmux load-buffer: %v: %s", err, out)
	}
	s.tmux("paste-buffer", "-d", "-r", "-b", "raw", "-t", "w")
}

// Screen is the pane's text now.
func (s *Tmux) Screen() string {
	s.t.Helper()
	return s.tmux("capture-pane", "-p", "-t", "w")
}

// WaitFor polls the screen until cond holds and returns that screen. It
// fails the test with what was awaited and the last screen after timeout,
// or at once when the program has ended (its screen will not change).
func (s *Tmux) WaitFor(timeout time.Duration, what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		last := s.Screen()
		if cond(last) {
			return last
		}
		if strings.Contains(last, "EXITED ") {
			s.t.Fatalf("the program ended before the screen showed %s; it shows:\n%s", what, last)
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen did not show %s within %s; it shows:\n%s", what, timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitText waits until the screen shows every text, and returns the screen.
func (s *Tmux) WaitText(timeout time.Duration, texts ...string) string {
	s.t.Helper()
	return s.WaitFor(timeout, fmt.Sprintf("%q", texts), func(screen string) bool {
		for _, text := range texts {
			if !strings.Contains(screen, text) {
				return false
			}
		}
		return true
	})
}

// PID is the process ID of the program (the child of the pane's shell).
func (s *Tmux) PID() int {
	s.t.Helper()
	shell := strings.TrimSpace(s.tmux("list-panes", "-t", "w", "-F", "#{pane_pid}"))
	b, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil {
		s.t.Fatalf("children of the pane's shell %s: %v", shell, err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		s.t.Fatalf("the pane's shell %s runs no program (it has ended)", shell)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		s.t.Fatalf("pid %q: %v", f[0], err)
	}
	return pid
}

// Kill stops the session's tmux server and everything running in it. It
// runs by itself when the test ends; calling it twice is harmless.
func (s *Tmux) Kill() {
	_ = exec.Command("tmux", "-S", s.socket, "kill-server").Run()
	_ = os.RemoveAll(s.dir)
}
