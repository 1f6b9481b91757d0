package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/creack/pty"

	"github.com/workq-tui/workq-tui/cli/internal/noquery"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// Terminal queries that wait for an answer: the background colour (OSC 11)
// and the cursor position (DSR).
var terminalQueries = []string{"\x1b]11;?", "\x1b[6n"}

// slowerThanPipe is how many times longer than the same work written to a
// pipe (where nothing can ask the terminal anything), measured in the same
// run, a command may take to show its output on a terminal that answers no
// query. A query waits seconds for its answer (termenv 5 s each), tens of
// times a command's whole run; the factor leaves room for a loaded machine.
const slowerThanPipe = 8

// pipeBaseline is the longest of three runs of bin with args writing to a
// pipe: the time of the same work with no terminal to ask.
func pipeBaseline(t *testing.T, bin string, args []string, env ...string) time.Duration {
	t.Helper()
	var longest time.Duration
	for range 3 {
		cmd := exec.Command(bin, args...)
		cmd.Env = append([]string{"TERM=xterm-256color", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
		began := time.Now()
		_ = cmd.Run() // usage errors and findings exit non-zero: the time is what counts
		longest = max(longest, time.Since(began))
	}
	return longest
}

// TestNothingWaitsOnTheTerminal runs every command, and the screen, on a
// pseudo-terminal that never answers a query (as the Linux console, GNU
// screen, mosh or many web terminals do not) and measures the time from
// the process start to its output. Commands print no colour, so they must
// not send a query at all.
func TestNothingWaitsOnTheTerminal(t *testing.T) {
	bin := redistest.Binary(t)
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.WorkerPools(), "deaddeaddeaddeaddeaddead")
	srv.Do("HSET", k.Heartbeat("deaddeaddeaddeaddeaddead"), "heartbeat_at", 1, "job_names", "mail")
	srv.Do("RPUSH", k.InProgress("mail", "deaddeaddeaddeaddeaddead"), "j1")
	orphan := k.InProgress("mail", "0123456789abcdef01234567")
	srv.Do("RPUSH", orphan, "j2")
	addr := "--redis=" + srv.Addr()
	// The floor of the baselines: the longest of three starts of a process
	// on this terminal that asks nothing (version), which a loaded machine
	// makes vary far more than the work on a pipe.
	var floor time.Duration
	for range 3 {
		took, _ := runOnSilentTerminal(t, bin, []string{"version"}, "workq-tui ", false)
		floor = max(floor, took)
	}

	for _, tc := range []struct {
		name   string
		args   []string
		want   string // text of the first output
		screen bool   // runs until stopped; may draw with escapes
		// base is the work measured on a pipe for the baseline: args
		// themselves, or for the screen a snapshot (the same connection and
		// reads; the screen itself needs a terminal).
		base []string
	}{
		{"snapshot", []string{addr, "snapshot"}, "POOLS (", false, nil},
		{"snapshot --json", []string{addr, "snapshot", "--json"}, `"namespace"`, false, nil},
		{"reap --dry-run", []string{addr, "reap", "--dry-run", "--all-dead"}, "Dry run", false, nil},
		{"requeue --dry-run", []string{addr, "requeue", "--dry-run", orphan}, "Dry run", false, nil},
		{"repair-locks --dry-run", []string{addr, "repair-locks", "--dry-run", "mail"}, "mail", false, nil},
		{"version", []string{"version"}, "workq-tui ", false, nil},
		{"help", []string{"--help"}, "Usage", false, nil},
		{"usage error", []string{"snapshot", "--yes"}, "does not apply", false, nil},
		{"screen", []string{addr}, srv.Addr(), true, []string{addr, "snapshot"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base
			if base == nil {
				base = tc.args
			}
			pipe := max(pipeBaseline(t, bin, base), floor)
			took, out := runOnSilentTerminal(t, bin, tc.args, tc.want, tc.screen)
			t.Logf("%s: first output after %v; baseline %v", tc.name, took.Round(time.Millisecond), pipe.Round(time.Millisecond))
			if took > slowerThanPipe*pipe {
				t.Errorf("%q took %v to show, more than %d times its baseline %v (the same work on a pipe, or a process's start on this terminal); output %q", tc.want, took.Round(time.Millisecond), slowerThanPipe, pipe.Round(time.Millisecond), out)
			}
			// TERM is the terminal's again once the program runs: the
			// screen draws in its 256 colours.
			if tc.screen && !strings.Contains(out, "\x1b[38;5;") {
				t.Errorf("the screen drew without the colours of TERM=xterm-256color; output %q", out)
			}
			for _, q := range terminalQueries {
				if strings.Contains(out, q) {
					t.Errorf("sent the terminal query %q; output %q", q, out)
				}
			}
		})
	}
}

// runOnSilentTerminal starts bin on a new pseudo-terminal (TERM says it
// could answer queries; it never does) and returns how long want took to
// appear and everything written until the process ended (a screen is killed
// once want is seen). env is added to the process's environment.
func runOnSilentTerminal(t *testing.T, bin string, args []string, want string, screen bool, env ...string) (time.Duration, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"TERM=xterm-256color", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	start := time.Now()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tty.Close() }()
	var (
		mu   sync.Mutex
		out  bytes.Buffer
		seen time.Duration
	)
	found := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			if seen == 0 && bytes.Contains(out.Bytes(), []byte(want)) {
				seen = time.Since(start)
				close(found)
			}
			mu.Unlock()
			if err != nil {
				return // EIO once the process has ended
			}
		}
	}()
	// The wait is long enough to see how long a terminal query holds the
	// output up (termenv waits 5 s per query).
	select {
	case <-found:
	case <-time.After(15 * time.Second):
	}
	if screen {
		_ = cmd.Process.Kill()
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	_ = tty.Close() // ends the reader above, which then closes done
	<-done
	mu.Lock()
	defer mu.Unlock()
	if seen == 0 {
		t.Fatalf("%q never appeared; output %q", want, out.String())
	}
	return seen, out.String()
}

// drawDefaultRendererEnv makes the test binary, run by
// TestScreenDefaultRendererAsksNothing, draw a screen built without a
// renderer and exit.
const drawDefaultRendererEnv = "WORKQ_TUI_TEST_DRAW_DEFAULT_RENDERER"

// TestScreenDefaultRendererAsksNothing: a screen given no renderer draws
// for os.Stdout; on a terminal (its controlling terminal, so that termenv
// would ask) that never answers, its first frame comes at once and it sends
// no query. The test runs itself on a pseudo-terminal to draw.
func TestScreenDefaultRendererAsksNothing(t *testing.T) {
	if os.Getenv(drawDefaultRendererEnv) == "1" {
		noquery.Restore() // as Run does: TERM is the terminal's
		snap := &model.Snapshot{Namespace: "work", RedisTime: time.Now(),
			Pools: []model.Pool{{ID: "deaddeaddeaddeaddeaddead", Status: model.StatusDead}}}
		var m tea.Model = tui.New(tui.Options{Address: "redis.internal:6379", Namespace: "work", Interval: time.Hour,
			Reads: tui.Reads{Poll: snapshotSource{snap}}})
		// Init's commands: the first poll answers at once; the clock's
		// tick may come or not.
		msgs := make(chan tea.Msg, 8)
		for _, cmd := range m.Init()().(tea.BatchMsg) {
			if cmd != nil {
				go func() { msgs <- cmd() }()
			}
		}
		for deadline := time.After(300 * time.Millisecond); ; {
			select {
			case msg := <-msgs:
				m, _ = m.Update(msg)
				continue
			case <-deadline:
			}
			break
		}
		fmt.Println(m.View())
		fmt.Println("FRAME DRAWN")
		return
	}
	args := []string{"-test.run=^TestScreenDefaultRendererAsksNothing$"}
	pipe := pipeBaseline(t, os.Args[0], args, drawDefaultRendererEnv+"=1")
	took, out := runOnSilentTerminal(t, os.Args[0], args, "FRAME DRAWN", false, drawDefaultRendererEnv+"=1")
	if took > slowerThanPipe*pipe {
		t.Errorf("the first frame took %v, more than %d times the %v of the same frame drawn to a pipe; output %q", took.Round(time.Millisecond), slowerThanPipe, pipe.Round(time.Millisecond), out)
	}
	if !strings.Contains(out, "\x1b[38;5;") {
		t.Errorf("the frame has no colours of TERM=xterm-256color; output %q", out)
	}
	for _, q := range terminalQueries {
		if strings.Contains(out, q) {
			t.Errorf("sent the terminal query %q; output %q", q, out)
		}
	}
}

// snapshotSource is a tui.Poller that always returns one snapshot.
type snapshotSource struct{ snap *model.Snapshot }

func (s snapshotSource) Poll(context.Context, redisq.PollRequest) (*model.Snapshot, error) {
	return s.snap, nil
}
