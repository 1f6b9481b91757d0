package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// TestScreenBulkRequeueRate: the built program in a terminal, on a real
// redis-server. Every dead job marked (A), :requeue --rate 20 opens the
// bulk requeue's dialog at 20 jobs a second, + and - and digits change
// it, y runs it paced (the queue grows no faster than the rate), the
// status line shows the progress, and esc stops it: every job in exactly
// one place.
func TestScreenBulkRequeueRate(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "mail")
	redistest.Do(t, c, "SADD", "work:worker_pools", "live")
	redistest.Do(t, c, "HSET", "work:worker_pools:live", "job_names", "mail", "heartbeat_at", now+3600, "worker_ids", "w1")
	const n = 400
	for i := range n {
		raw := fmt.Sprintf(`{"name":"mail","id":"j%04d","t":%d,"args":{},"fails":4,"err":"gateway timeout","failed_at":%d}`, i, now-7200, now-3600+int64(i))
		redistest.Do(t, c, "ZADD", "work:dead", now-3600+int64(i), raw)
	}
	s := redistest.StartTmux(t, 120, 40, []string{"NO_COLOR=1", "XDG_STATE_HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()}, redistest.Binary(t),
		"--redis", srv.Addr(), "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	s.WaitText(15*time.Second, "live")
	s.Write(":jobs dead\r")
	s.WaitText(10*time.Second, "gateway timeout")
	s.Keys("A")
	s.WaitText(5*time.Second, "all 400 matching marked")
	s.Write(":requeue --rate 20\r")
	s.WaitText(10*time.Second, "rate: at most 20 jobs/s")
	s.Keys("+")
	s.WaitText(5*time.Second, "rate: at most 50 jobs/s")
	s.Keys("-")
	s.Keys("-")
	s.WaitText(5*time.Second, "rate: at most 10 jobs/s")
	s.Keys("3")
	s.Keys("0")
	s.WaitText(5*time.Second, "rate: at most 30 jobs/s")
	s.WaitText(5*time.Second, "y: run it")
	queued := func() int64 {
		v, err := redis.Int64(c.Do("LLEN", "work:jobs:mail"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	s.Keys("y")
	start := time.Now()
	s.WaitText(5*time.Second, "at 30/s")
	time.Sleep(2 * time.Second)
	got, elapsed := queued(), time.Since(start)
	// At most 30 a second, counted from the first call, plus the first
	// second's share.
	if limit := int64(30 * (elapsed.Seconds() + 1)); got > limit || got == 0 {
		t.Fatalf("%d jobs requeued in %s at 30/s (at most %d)", got, elapsed.Round(time.Millisecond), limit)
	}
	t.Logf("%d jobs requeued in %s at 30/s", got, elapsed.Round(time.Millisecond))
	s.Keys("Escape")
	s.WaitText(10*time.Second, "stopped:")
	after := queued()
	time.Sleep(500 * time.Millisecond)
	if queued() != after || after >= n {
		t.Fatalf("after esc: %d queued, then %d (of %d)", after, queued(), n)
	}
	ids := map[string]int{}
	q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
	dead, _ := redis.Strings(c.Do("ZRANGE", "work:dead", 0, -1))
	for _, raw := range append(q, dead...) {
		j, _ := model.ParseJobFields([]byte(raw))
		ids[j.ID]++
	}
	if len(ids) != n || len(q)+len(dead) != n {
		t.Fatalf("%d ids in %d members, want %d", len(ids), len(q)+len(dead), n)
	}
	if !strings.Contains(s.Screen(), "jobs done") {
		t.Errorf("the stop is not said:\n%s", s.Screen())
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
