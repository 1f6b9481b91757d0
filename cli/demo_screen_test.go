package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestDemoScreen runs the built binary in tmux: `workq-tui --demo` shows
// the live and the dead pools with a DEMO badge within 3 s of starting, its
// first line naming the live incident (a type failing, one starving), and
// X then y reaps the dead ones while the live pools go on.
func TestDemoScreen(t *testing.T) {
	bin := redistest.Binary(t)
	// rows counts the lines of the pools view that start with a status.
	rows := func(screen, status string) int {
		n := 0
		for _, line := range strings.Split(screen, "\n") {
			if f := strings.Fields(strings.TrimPrefix(line, ">")); len(f) > 1 && f[0] == status && len(f[1]) == 24 {
				n++
			}
		}
		return n
	}

	start := time.Now()
	s := redistest.StartTmux(t, 120, 30, []string{"NO_COLOR=1"}, bin, "--demo")
	// 3 s is the promise on a laptop; a loaded 2-core CI machine gets
	// slack, and the time taken is reported.
	s.WaitFor(15*time.Second, "4 live and 2 dead pools with a DEMO badge, the incident in the first line", func(screen string) bool {
		first, _, _ := strings.Cut(screen, "\n")
		return strings.Contains(screen, "DEMO") && rows(screen, "DEAD") == 2 && rows(screen, "ok") == 4 &&
			strings.HasPrefix(first, "✖ charge_card failing ") && strings.Contains(first, "send_sms waiting ")
	})
	took := time.Since(start)
	t.Logf("live and dead pools on the screen %v after start (a share %.2f of the 3 s allowed)", took.Round(time.Millisecond), took.Seconds()/3)

	// e's words on the failing type: the cause and a fix that runs when
	// pasted (the demo's Redis named, not --demo).
	s.Keys(":explain charge_card", "Enter")
	s.WaitText(10*time.Second, "charge_card is failing ", "fix: workq-tui --redis 127.0.0.1:")
	s.Keys("Escape")
	s.WaitFor(5*time.Second, "the pools again", func(screen string) bool { return rows(screen, "DEAD") == 2 })

	s.Keys("X")
	s.WaitText(5*time.Second, "Reap 2 dead pools?", "y: run it")
	s.Keys("y")
	s.WaitFor(10*time.Second, "reap result with the dead pools gone", func(screen string) bool {
		return strings.Contains(screen, "reaped 2 pools") && rows(screen, "DEAD") == 0 && rows(screen, "ok") == 4
	})
	// The simulation goes on: 6 s later (beyond one heartbeat) the live pools
	// are still alive.
	time.Sleep(6 * time.Second)
	s.WaitFor(5*time.Second, "4 live pools after the reap", func(screen string) bool {
		return rows(screen, "ok") == 4 && rows(screen, "DEAD") == 0
	})
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
