package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// On the screen, a requeue of dead jobs no live pool serves shows the
// plan of the jobs with the warning; y does nothing there, F plans them
// with force, and y then requeues them: through the program's own reader
// and actor on a real Redis.
func TestScreenRequeueUnservedDeadJobs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "refund")
	for i := range 3 {
		at := now - 300 + int64(i)
		redistest.Do(t, c, "ZADD", "work:dead", at, fmt.Sprintf(`{"name":"refund","id":"rf%d","t":1,"args":{},"fails":25,"err":"gateway down","failed_at":%d}`, i, at))
	}
	s := redistest.StartTmux(t, 80, 24, []string{"NO_COLOR=1"}, redistest.Binary(t),
		"--redis", srv.Addr(), "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	s.WaitText(15*time.Second, "dead jobs 3")
	s.Keys(":", "jobs dead", "Enter")
	s.WaitText(10*time.Second, "rf2")
	s.Keys("R")
	screen := s.WaitText(10*time.Second, "no live pool serves refund", "F: requeue anyway")
	if !strings.Contains(screen, "rf2") || strings.Contains(screen, "not planned") {
		t.Fatalf("the plan does not list the job:\n%s", screen)
	}
	s.Keys("y")
	time.Sleep(500 * time.Millisecond)
	if n := redistest.Do(t, c, "ZCARD", "work:dead"); n != int64(3) {
		t.Fatalf("y in the refused plan changed the dead set: %v members", n)
	}
	s.Keys("F")
	s.WaitText(10*time.Second, "y: run it")
	s.Keys("y")
	s.WaitFor(10*time.Second, "the job requeued", func(string) bool {
		n, _ := c.Do("LLEN", "work:jobs:refund")
		return n == int64(1)
	})
	if n := redistest.Do(t, c, "ZCARD", "work:dead"); n != int64(2) {
		t.Errorf("the dead set holds %v members after the requeue of one, want 2", n)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
