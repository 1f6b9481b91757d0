package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/screentest"
)

// cmdLineShown is the command line as drawn at the foot of the screen,
// "" when it is closed.
func cmdLineShown(s *screentest.Screen) string {
	for _, l := range s.Lines() {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, ":") {
			return t
		}
	}
	return ""
}

// waitCmdLine waits until the command line shows line.
func waitCmdLine(t *testing.T, s *screentest.Screen, line string) {
	t.Helper()
	s.WaitFor("the command line showing "+line, func(string) bool { return strings.TrimRight(cmdLineShown(s), "█▏ ") == line })
}

// up and down on the command line go through the lines run before, and
// back to the one being typed; enter runs the line recalled. The lines
// are kept in the user's state directory, readable by the user alone,
// and the next run of the program recalls them.
func TestDriveCommandLineHistory(t *testing.T) {
	t.Parallel()
	srv, _ := deadAndLive(t)
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	s.Run("orphans")
	s.Wait("[Orphans]")
	s.Run("workers")
	s.Wait("[Workers]")
	s.Press(":jo")
	waitCmdLine(t, s, ":jo")
	s.Press("up")
	waitCmdLine(t, s, ":workers")
	s.Press("up")
	waitCmdLine(t, s, ":orphans")
	s.Press("up") // the oldest stays
	waitCmdLine(t, s, ":orphans")
	s.Press("down")
	waitCmdLine(t, s, ":workers")
	s.Press("down")
	waitCmdLine(t, s, ":jo")
	s.Press("up", "up", "enter")
	s.Wait("[Orphans]")

	file := filepath.Join(s.State, "workq-tui", "cmdline_history")
	var kept string
	s.WaitFor("the history kept", func(string) bool {
		b, err := os.ReadFile(file)
		kept = string(b)
		return err == nil && kept == "orphans\nworkers\norphans\n"
	})
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the history's mode is %v, want 0600", fi.Mode().Perm())
	}

	next := screentest.StartWith(t, srv, map[string]string{"XDG_STATE_HOME": s.State})
	next.Wait("DEAD   deadbeef")
	next.Press(":", "up")
	waitCmdLine(t, next, ":orphans")
	next.Press("up")
	waitCmdLine(t, next, ":workers")
	next.Press("enter")
	next.Wait("[Workers]")
}

// :refresh reads Redis at once, as r does: with polls an hour apart, a
// pool that appeared shows only after it.
func TestDriveRefreshCommand(t *testing.T) {
	t.Parallel()
	srv, seed := deadAndLive(t)
	s := screentest.Start(t, srv, "--interval", "1h", "--sweep-interval", "1h")
	s.Wait("DEAD   deadbeef", "2 pools")
	seed.Pool("abcdef000000000000000009", 0, "mail")
	seed.Do("SREM", seed.K.WorkerPools(), deadPool)
	seed.Do("DEL", seed.K.Heartbeat(deadPool))
	s.Run("refresh")
	s.Wait("host-abcd", "2 pools")
	s.WaitGone("DEAD   deadbeef")
}

// The commands' other names open the same views: :types and :job-types
// the Job types view; :q ends the screen.
func TestDriveCommandAliases(t *testing.T) {
	t.Parallel()
	srv, _ := deadAndLive(t)
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	for _, name := range []string{"types", "job-types"} {
		s.Run(name)
		s.Wait("[Job types]")
		s.Run("pools")
		s.Wait("[Pools]")
	}
	s.Run("q")
	s.WaitEnded()
}
