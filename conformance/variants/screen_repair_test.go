package variants_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/conformance/variants"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestScreenRepairLocksLeavesLeakOut: the program in a terminal on a real
// Redis holding gocraft/work master's leaked stand-in, and real drift
// besides (a lock that no list backs). The screen's polls do not look for
// leaked entries; L on the drifted type, confirmed, repairs the lock
// without counting the stand-in, so at max_concurrency 1 the type can
// run again. The header names the build that wrote the namespace.
func TestScreenRepairLocksLeavesLeakOut(t *testing.T) {
	bin := redistest.Binary(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	s := variants.Read(t, "master-live.json")
	variants.Load(t, c, s, true)
	lock := s.Namespace + ":jobs:sync_account:lock"
	srv.Do("SET", lock, 3) // a crash between a fetch and its end: real drift
	beat := s.Namespace + ":worker_pools:" + s.PoolID(t)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // the recorded pool stays alive and idle
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
				srv.Do("EVAL", "redis.call('HSET', KEYS[1], 'heartbeat_at', redis.call('TIME')[1])", 1, beat)
			}
		}
	}()
	tm := redistest.StartTmux(t, 80, 24, []string{"NO_COLOR=1", "XDG_STATE_HOME=" + t.TempDir()}, bin,
		"--redis", srv.Addr(), "-n", s.Namespace, "--interval", "500ms",
		"--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	// The header names the build; after the sweep, the screen's snapshot
	// is a poll's.
	tm.WaitText(15*time.Second, "1 drift", "writer master-or-gojek")
	time.Sleep(2 * time.Second)
	tm.Keys("Tab")
	tm.WaitText(5*time.Second, "[Job types]", "sync_account")
	tm.Keys("L")
	tm.WaitText(5*time.Second, "Repair the locks of sync_account?", "y: run it")
	tm.Keys("y")
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for got = str(t, c, "GET", lock); got == "3"; got = str(t, c, "GET", lock) {
		if time.Now().After(deadline) {
			t.Fatalf("the repair did not run:\n%s", tm.Screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got != "0" {
		t.Fatalf("lock %s after the screen's repair, want 0 (the leaked stand-in holds no slot):\n%s", got, tm.Screen())
	}
	tm.Keys("q")
	tm.WaitText(5*time.Second, "EXITED 0")
}
