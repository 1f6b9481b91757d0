package redistest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// rootModule is the import path of workq-tui's main package.
const rootModule = "github.com/workq-tui/workq-tui"

// built is the workq-tui binary this test process has built. It is the one
// piece of package-level state in the project, and it has to be: a test
// binary builds the program once for all its tests (a build takes seconds,
// tests run in parallel), and only a value that outlives every test can hold
// it. It is written once under the Once and removed by Main.
var built struct {
	main bool // Main runs the tests, so the binary will be removed
	once sync.Once
	dir  string
	path string
	err  error
}

// Main runs the tests of a package that calls Binary and then removes the
// binary it built. Call it from TestMain: os.Exit(redistest.Main(m)).
func Main(m *testing.M) int {
	built.main = true
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir) // best effort: a temp dir
	}
	return code
}

// Binary builds workq-tui (the main package at the root module) once per
// test process, without -race and without cgo, and returns its path. Safe
// for parallel tests: the first caller builds, the others wait. A failed
// build fails every test that asks for the binary, with go build's output.
// The package's TestMain must call Main, which removes the binary.
//
// Under go test -short (the quick loop) a test that needs the binary is
// skipped: building it and starting processes is what makes the suite
// minutes long. make test runs them.
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the built workq-tui binary: left out of go test -short, run by make test")
	}
	if !built.main {
		t.Fatal("redistest.Binary needs the package's TestMain to be os.Exit(redistest.Main(m)), which removes the binary after the tests")
	}
	built.once.Do(func() { built.dir, built.path, built.err = build() })
	if built.err != nil {
		t.Fatalf("build workq-tui: %v", built.err)
	}
	return built.path
}

func build() (dir, path string, err error) {
	// The root module's directory, from the module this test belongs to:
	// the main module itself, or the replace directive of a nested module
	// such as conformance/.
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", rootModule).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", "", fmt.Errorf("go list -m %s: %v: %s", rootModule, err, ee.Stderr)
		}
		return "", "", fmt.Errorf("go list -m %s: %w", rootModule, err)
	}
	root := strings.TrimSpace(string(out))
	if dir, err = os.MkdirTemp("", "workq-tui-test-bin-"); err != nil {
		return "", "", fmt.Errorf("build directory: %w", err)
	}
	path = filepath.Join(dir, "workq-tui")
	cmd := exec.Command("go", "build", "-o", path, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		return dir, "", fmt.Errorf("go build in %s: %v\n%s", root, err, msg.String())
	}
	return dir, path, nil
}

// Result is what one run of a program printed and its exit status.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs bin with args, stdin empty (not a terminal), in the test's
// environment without REDIS_PASSWORD plus env, and returns what it printed
// and its exit status. It fails the test when bin cannot be started.
func Run(t testing.TB, bin string, env []string, args ...string) Result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Env = append(Env(), env...)
	if !setsStateHome(env) {
		// A write run by a test must never reach the developer's own audit
		// log and journal: without a state directory of its own, it gets the
		// test's.
		cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+t.TempDir())
	}
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return Result{out.String(), errb.String(), 0}
	case errors.As(err, &ee):
		return Result{out.String(), errb.String(), ee.ExitCode()}
	}
	t.Fatalf("run %s %q: %v", filepath.Base(bin), args, err)
	return Result{}
}

// setsStateHome says whether env names the state directory itself.
func setsStateHome(env []string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			return true
		}
	}
	return false
}

// Env is the test's environment without REDIS_PASSWORD, so that a
// developer's own setting cannot reach the program under test.
func Env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REDIS_PASSWORD=") {
			out = append(out, kv)
		}
	}
	return out
}
