package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// A worker that runs long and stopped checking in reads LONG STALE in
// the Workers view whole at 60, 80 and 120 columns: the note is the word
// that matters, another column gives way.
func TestScreenWorkersNoteWhole(t *testing.T) {
	for _, size := range [][2]int{{60, 20}, {80, 24}, {120, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			srv := redistest.Start(t)
			c := srv.Dial()
			k := redisq.NewKeys("work")
			beatWhileTesting(t, srv, "work", "ffffffffffffffffffffff99", "charge")
			now := redistest.Time(t, c).Unix()
			redistest.Do(t, c, "SADD", k.KnownJobs(), "charge")
			redistest.Do(t, c, "HSET", k.Prefix()+"worker:w1", "job_name", "charge", "job_id", "c1", "started_at", now-3600,
				"args", "{}", "checkin", "calling the card gateway for the third time", "checkin_at", now-1800)
			s := redistest.StartTmux(t, size[0], size[1], []string{"NO_COLOR=1"}, redistest.Binary(t),
				"--redis", srv.Addr(), "--read-only", "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
			s.WaitText(15*time.Second, "1 pool")
			s.Keys(":", "workers", "Enter")
			screen := s.WaitText(10*time.Second, "CHECKIN")
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(screen, "LONG") && time.Now().Before(deadline) {
				time.Sleep(200 * time.Millisecond)
				screen = s.Screen()
			}
			if !strings.Contains(screen, "LONG STALE") {
				t.Errorf("the note is not whole:\n%s", screen)
			}
			s.Keys("q")
			s.WaitText(5*time.Second, "EXITED 0")
		})
	}
}
