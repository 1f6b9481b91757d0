package reaper

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killChild runs the test binary's child test run, with env added to its
// environment, and kills it with SIGKILL after afterCalls lines saying
// "done" (one per script call), or, when afterCalls is 0, after delay. A
// line the child starts with "error", or one bad says is bad, fails the
// test. It returns the calls the child reported and whether it said
// "finished" before it was killed.
func killChild(t *testing.T, exe, run, env string, afterCalls int, delay time.Duration, bad func(line string) bool) (calls int, finished bool) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^"+run+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var timer *time.Timer
	if afterCalls == 0 {
		timer = time.AfterFunc(delay, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "error"), bad != nil && bad(line):
			t.Fatalf("%s child: %s", run, line)
		case strings.HasPrefix(line, "finished"):
			finished = true
		case strings.HasPrefix(line, "done"):
			calls++
			if calls == afterCalls {
				_ = cmd.Process.Signal(syscall.SIGKILL)
			}
		}
	}
	_ = cmd.Wait()
	if timer != nil {
		timer.Stop()
	}
	return calls, finished
}
