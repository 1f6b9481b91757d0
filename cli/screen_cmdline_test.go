package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// beatWhileTesting keeps pool's heartbeat fresh until the test ends, as a
// live gocraft/work pool does every 5 s.
func beatWhileTesting(t *testing.T, srv *redistest.Server, ns, pool, jobs string) {
	t.Helper()
	k := redisq.NewKeys(ns)
	c := srv.Dial()
	beat := func() {
		now := redistest.Time(t, c).Unix()
		redistest.Do(t, c, "SADD", k.WorkerPools(), pool)
		redistest.Do(t, c, "HSET", k.Heartbeat(pool), "heartbeat_at", now, "started_at", now-60, "job_names", jobs,
			"host", "web-1", "pid", 9, "concurrency", 2, "worker_ids", "w1,w2")
	}
	beat()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				now := time.Now().Unix()
				_, _ = c.Do("HSET", k.Heartbeat(pool), "heartbeat_at", now)
			}
		}
	}()
	t.Cleanup(func() { close(done); <-stopped })
}

// :reap completes the dead pools only: tab fills the dead pool's ID, and
// a second tab does not go on to the live one.
func TestScreenReapCompletesDeadPools(t *testing.T) {
	srv := redistest.Start(t)
	seedDeadPool(t, srv, "work", poolA, "mail")
	const live = "ffffffffffffffffffffff99"
	beatWhileTesting(t, srv, "work", live, "mail")
	s := redistest.StartTmux(t, 80, 24, []string{"NO_COLOR=1"}, redistest.Binary(t),
		"--redis", srv.Addr(), "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	s.WaitText(15*time.Second, "1 dead")
	s.Keys(":", "reap ", "Tab")
	s.WaitText(5*time.Second, ":reap "+poolA)
	s.Keys("Tab")
	time.Sleep(300 * time.Millisecond)
	if screen := s.Screen(); strings.Contains(screen, ":reap "+live) || !strings.Contains(screen, ":reap "+poolA) {
		t.Errorf("a second tab left the dead pool's ID:\n%s", screen)
	}
	s.Keys("Enter")
	s.WaitText(5*time.Second, "Reap 1 dead pool?")
	s.Keys("n")
	s.WaitFor(5*time.Second, "the dialog closed", func(screen string) bool { return !strings.Contains(screen, "Reap 1 dead pool?") })
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
