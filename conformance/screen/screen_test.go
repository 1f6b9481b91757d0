// Package screen_test runs the built workq-tui screen in tmux against a
// real redis-server holding a gocraft/work v0.5.1 pool killed with SIGKILL:
// the pool shows DEAD, X then y reaps it, and Redis shows the
// pool gone and its jobs back in their queue. With --read-only the same keys
// send no write command at all.
package screen_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(redistest.Main(m))
}

const ns = "screen"

// startScreen runs the built binary in a tmux terminal of the given size,
// without colours (capture-pane reads text anyway).
func startScreen(t *testing.T, width, height int, args ...string) *redistest.Tmux {
	t.Helper()
	return redistest.StartTmux(t, width, height, []string{"NO_COLOR=1"}, append([]string{redistest.Binary(t)}, args...)...)
}

// waitRow waits until one line of the screen holds every text.
func waitRow(s *redistest.Tmux, timeout time.Duration, texts ...string) string {
	return s.WaitFor(timeout, fmt.Sprintf("a line with %q", texts), func(screen string) bool {
		for _, line := range strings.Split(screen, "\n") {
			all := true
			for _, text := range texts {
				all = all && strings.Contains(line, text)
			}
			if all {
				return true
			}
		}
		return false
	})
}

func TestScreenReapsKilledPool(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	keys := redisq.NewKeys(ns)
	// A live pool (other job type) first, then the killed one: the live
	// pool's own reaper cannot reap the killed pool during this test (see
	// gcstate), so only the screen can.
	live := gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: "e2e_live"}}})
	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 3,
		Jobs: []gcstate.JobType{{Name: "e2e_mail", Enqueue: 5}}})
	held := killed.InProgress["e2e_mail"]
	if held != 3 {
		t.Fatalf("killed pool holds %d jobs, want 3", held)
	}
	audit := filepath.Join(t.TempDir(), "audit.log")
	// --dead-after 8s: shorter than upstream's 10 s to keep the test quick,
	// longer than the 5 s beat (plus whole-second rounding) of the live pool.
	s := startScreen(t, 120, 30, "--redis", srv.Addr(), "-n", ns, "--dead-after", "8s", "--interval", "500ms", "--audit-log", audit)

	waitRow(s, 20*time.Second, "ok", live.ID)
	screen := waitRow(s, 20*time.Second, "DEAD", killed.ID)
	if !strings.Contains(screen, "dead pools 1") {
		t.Fatalf("more than the killed pool is dead:\n%s", screen)
	}
	t.Logf("before the reap:\n%s", screen)
	s.Keys("X")
	s.WaitText(5*time.Second, "Reap 1 dead pool?", "e2e_mail", "Total: 3 jobs back", "y: run it")
	s.Keys("y")
	screen = s.WaitText(10*time.Second, "reaped 1 pool, 3 jobs back in their queues")
	t.Logf("after the reap:\n%s", screen)

	// Redis: the pool is gone, its jobs are back in their queue, the lock
	// is released; the live pool is untouched.
	if ok, _ := redis.Bool(c.Do("SISMEMBER", keys.WorkerPools(), killed.ID)); ok {
		t.Error("the killed pool is still in worker_pools")
	}
	if n, _ := redis.Int(c.Do("EXISTS", keys.Heartbeat(killed.ID))); n != 0 {
		t.Error("the killed pool's heartbeat is still there")
	}
	if n, _ := redis.Int(c.Do("LLEN", keys.InProgress("e2e_mail", killed.ID))); n != 0 {
		t.Errorf("%d jobs left in progress", n)
	}
	if n, _ := redis.Int(c.Do("LLEN", keys.Queue("e2e_mail"))); n != 5 {
		t.Errorf("queue e2e_mail holds %d jobs, want all 5", n)
	}
	if n, _ := redis.Int(c.Do("GET", keys.Lock("e2e_mail"))); n != 0 {
		t.Errorf("lock of e2e_mail is %d, want 0", n)
	}
	if ok, _ := redis.Bool(c.Do("HEXISTS", keys.LockInfo("e2e_mail"), killed.ID)); ok {
		t.Error("lock_info still has the killed pool")
	}
	if ok, _ := redis.Bool(c.Do("SISMEMBER", keys.WorkerPools(), live.ID)); !ok {
		t.Error("the live pool was removed")
	}
	// Once the data refreshed, the dead pool is off the screen.
	screen = s.WaitFor(5*time.Second, "no dead pool counted", func(sc string) bool {
		return strings.Contains(sc, "1 pool ·") && !strings.Contains(sc, "dead pools")
	})
	if strings.Contains(screen, killed.ID) {
		t.Errorf("the reaped pool is still on screen:\n%s", screen)
	}
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "action=reap targets="+killed.ID+" moved=3") ||
		!strings.Contains(lines[0], "namespace="+ns) || !strings.Contains(lines[0], "redis="+srv.Addr()) {
		t.Errorf("audit log:\n%s", b)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}

func TestScreenReadOnlyWritesNothing(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: "e2e_ro", Enqueue: 3}}})
	before := redistest.Dump(t, c, "*")
	redistest.Do(t, c, "CONFIG", "RESETSTAT")

	s := startScreen(t, 100, 24, "--redis", srv.Addr(), "-n", ns, "--dead-after", "2s", "--interval", "300ms", "--read-only")
	s.WaitText(15*time.Second, "READ-ONLY")
	waitRow(s, 15*time.Second, "DEAD", killed.ID)
	for _, k := range []string{"X", "y", "x", "y", "Enter", "Escape"} {
		s.Keys(k)
		time.Sleep(150 * time.Millisecond)
	}
	screen := s.Screen()
	// The status line may say why the key does nothing ("read-only: reap is
	// disabled"); no dialog (Reap ...) and no result (reaped ...) may show.
	if strings.Contains(screen, "Reap") || strings.Contains(screen, "reaped") || !strings.Contains(screen, "read-only: reap is disabled") {
		t.Errorf("read-only screen offers or ran a reap:\n%s", screen)
	}
	time.Sleep(time.Second) // a few more polls
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")

	info, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, l := range strings.Split(info, "\n") {
		name, _, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(l), "cmdstat_"), ":")
		if !ok || !strings.HasPrefix(strings.TrimSpace(l), "cmdstat_") {
			continue
		}
		sent = append(sent, name)
		if name == "info" || strings.HasPrefix(name, "config") { // this test's own
			continue
		}
		if !redisq.IsReadCommand(name) {
			t.Errorf("the read-only screen sent %s", name)
		}
	}
	if !bytes.Contains([]byte(strings.Join(sent, " ")), []byte("smembers")) {
		t.Fatalf("no SMEMBERS in the command statistics %v: the screen never polled, the test proves nothing", sent)
	}
	if after := redistest.Dump(t, c, "*"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("Redis changed under --read-only:\nbefore %v\nafter  %v", before, after)
	}
}
