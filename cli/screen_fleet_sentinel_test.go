package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// A configuration target behind Redis Sentinel goes on the fleet screen
// beside a plain one: its row is polled from the master the sentinels
// name, and enter opens its screen, which follows the deployment.
func TestScreenFleetWithASentinelTarget(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{})
	writeSentinelState(t, dialServer(t, set.Master))
	plain := redistest.Start(t)
	seedDeadPool(t, plain, "beta", poolB, "sms")
	cfg := writeConfig(t, 0o600, fmt.Sprintf(`
[targets.ha]
sentinel = [%s]
sentinel_master = %q
read_only = true

[targets.plain]
redis = %q
namespace = "beta"
read_only = true
`, `"`+strings.Join(set.Addrs(), `", "`)+`"`, set.Name, plain.Addr()))
	s := redistest.StartTmux(t, 140, 30, []string{"NO_COLOR=1"}, redistest.Binary(t), "--config", cfg, "-t", "ha", "-t", "plain")
	screen := s.WaitFor(20*time.Second, "both targets polled", func(screen string) bool {
		a, b := fleetRowFields(screen, "ha"), fleetRowFields(screen, "plain")
		return a != nil && b != nil && a[1] == "ok" && b[1] == "ok"
	})
	if !strings.Contains(screen, "2 targets") {
		t.Errorf("no fleet header:\n%s", screen)
	}
	// Open the Sentinel target: its screen says which master it follows.
	for i := 0; i < 2; i++ {
		if strings.HasPrefix(strings.TrimSpace(rowOf(s.Screen(), "ha")), ">") {
			break
		}
		s.Keys("j")
		time.Sleep(100 * time.Millisecond)
	}
	s.Keys("Enter")
	s.WaitFor(10*time.Second, "the Sentinel target's screen", func(screen string) bool {
		return strings.Contains(screen, set.Master.Addr()+" master") && strings.Contains(screen, "swept")
	})
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}

// rowOf is the line of the screen whose first field (after the cursor) is
// name.
func rowOf(screen, name string) string {
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "> "))
		if len(f) > 0 && f[0] == name {
			return l
		}
	}
	return ""
}
