package tui_test

import (
	"fmt"
	"testing"

	"github.com/workq-tui/workq-tui/internal/screentest"
)

// E opens the events, empty at first; what changes in Redis shows there
// after the next poll: a pool that appeared, a queue that jumped, the
// dead pool once it is gone. esc closes it.
func TestDriveEvents(t *testing.T) {
	t.Parallel()
	srv, seed := deadAndLive(t)
	s := screentest.Start(t, srv, "--interval", "1h", "--sweep-interval", "1h")
	s.Wait("DEAD   deadbeef")
	s.Press("E")
	s.Wait("[Pools › events]", "nothing yet")
	seed.Pool("abcdef000000000000000009", 0, "mail")
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = fmt.Sprintf("q%03d", i)
	}
	seed.Queue("report", ids...)
	seed.Do("SREM", seed.K.WorkerPools(), deadPool)
	seed.Do("DEL", seed.K.Heartbeat(deadPool))
	s.Press("r")
	s.Wait("pool abcdef000000… appeared (alive)", "queue report jumped 0 -> 100", "pool deadbeef0000… was reaped")
	s.WaitGone("nothing yet")
	s.Press("esc")
	s.Wait("[Pools]", "host-abcd")
	s.WaitGone("[Pools › events]")
}
