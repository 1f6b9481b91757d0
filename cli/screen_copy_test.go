package cli

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/osc52"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestScreenCopiesThroughOSC52 runs the screen in tmux with set-clipboard
// on, so that tmux takes every OSC 52 sequence into its buffer: c on a job
// of the dead set copies its id, C the command that finds it (which runs
// when pasted), and c on the detail of a 1 MB member copies nothing and
// says why.
func TestScreenCopiesThroughOSC52(t *testing.T) {
	bin := redistest.Binary(t)
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.KnownJobs(), "mail")
	big := fmt.Sprintf(`{"name":"mail","id":"big1","t":1700000000,"args":{"blob":"%s"},"err":"x","fails":1,"failed_at":1700000001}`, strings.Repeat("b", 1<<20))
	srv.Do("ZADD", k.Dead(), 1700000001, big)
	srv.Do("ZADD", k.Dead(), 1700000002, `{"name":"mail","id":"small 1","t":1700000000,"args":{},"err":"x","fails":1,"failed_at":1700000002}`)

	s := redistest.StartTmux(t, 120, 30, []string{"NO_COLOR=1"}, bin, "--redis", srv.Addr(), "--interval", "250ms", "--read-only")
	s.Do("set-option", "-s", "set-clipboard", "on")
	buffer := func() string {
		out, err := exec.Command("tmux", "-S", s.Socket(), "show-buffer").Output()
		if err != nil {
			return ""
		}
		return string(out)
	}
	s.WaitText(15*time.Second, "1 job type")
	s.Keys(":")
	s.Keys("jobs dead", "Enter")
	s.WaitText(10*time.Second, "small 1")

	s.Keys("c")
	s.WaitText(10*time.Second, "copied job id small 1 (7 bytes) to the clipboard")
	if got := buffer(); got != "small 1" {
		t.Errorf("after c the buffer holds %q, want the job id", got)
	}

	s.Keys("C")
	s.WaitText(10*time.Second, "copied workq-tui --redis")
	cmd := buffer()
	want := "workq-tui --redis " + srv.Addr() + " find 'small 1'"
	if cmd != want {
		t.Fatalf("after C the buffer holds %q, want %q", cmd, want)
	}
	// Pasted into a shell, the command runs: the program stands in for
	// workq-tui on the PATH.
	out, err := exec.Command("sh", "-c", strings.Replace(cmd, "workq-tui", bin, 1)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "small 1") {
		t.Errorf("the copied command: %v\n%s", err, out)
	}

	s.Keys(":")
	s.Keys("copy", "Enter")
	s.WaitText(10*time.Second, "copied job id small 1")

	// The 1 MB member: on its row, c copies its id; in its detail, the
	// member itself, which is over the cap: nothing is sent.
	s.Keys("j")
	s.Keys("c")
	s.WaitText(10*time.Second, "copied job id big1")
	s.Keys("Enter")
	s.WaitText(10*time.Second, "big1")
	s.Keys("c")
	s.WaitText(10*time.Second, "not copied", fmt.Sprint(osc52.MaxText))
	if got := buffer(); got != "big1" {
		t.Errorf("after c on the 1 MB member the buffer holds %d bytes (%.20q), want the id copied before", len(got), got)
	}
}
