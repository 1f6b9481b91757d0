package cli

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestScreenWarnsOfEviction: on a Redis set to allkeys-lru the screen's
// header says the Redis may lose jobs, read from INFO at start.
func TestScreenWarnsOfEviction(t *testing.T) {
	srv := redistest.Start(t)
	seedDeadPool(t, srv, "work", poolA, "mail")
	c := srv.Dial()
	redistest.Do(t, c, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	s := redistest.StartTmux(t, 100, 30, []string{"NO_COLOR=1"}, redistest.Binary(t),
		"--redis", srv.Addr(), "--read-only", "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	s.WaitText(15*time.Second, poolA, "Redis may lose jobs: allkeys-lru evicts jobs")
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
