package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// input is what a test gives the command line besides its arguments: stdin,
// whether stdin is a terminal, and the environment (none when nil).
type input struct {
	stdin  string
	tty    bool
	getenv func(string) string
}

// runCLI runs the command line in-process as Run does and returns stdout,
// stderr and the exit status.
func runCLI(t *testing.T, in input, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{stdin: strings.NewReader(in.stdin), stdinIsTTY: in.tty, stdout: &out, stderr: &errb, getenv: testGetenv(t, in.getenv), version: "test"}
	code := exitCode(e.run(context.Background(), args), &errb)
	return out.String(), errb.String(), code
}

// testGetenv is the environment of a test run: getenv (none when nil), with
// XDG_STATE_HOME in a temporary directory unless getenv sets it, so that a
// write without --audit-log appends to a log of the test's own and never to
// the user's.
func testGetenv(t *testing.T, getenv func(string) string) func(string) string {
	t.Helper()
	state := t.TempDir()
	return func(key string) string {
		if getenv != nil {
			if v := getenv(key); v != "" {
				return v
			}
		}
		if key == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
}

// usageHint is the line a usage error ends with: the help to read.
const usageHint = "Run 'workq-tui "

// errorLines is how many lines stderr holds besides a usage hint.
func errorLines(stderr string) int {
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, usageHint) {
			n++
		}
	}
	return n
}

func TestMain(m *testing.M) { os.Exit(redistest.Main(m)) }
