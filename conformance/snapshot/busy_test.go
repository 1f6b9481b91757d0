package snapshot_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestNoFalseDriftWhileLivePoolsWork: live gocraft/work pools fetch and
// finish jobs as fast as they can while snapshots are taken; gocraft's own
// operations keep lock, lock_info and the in-progress lists consistent, so
// any drift a snapshot reports would be an artefact of the non-atomic
// pipeline. The confirming re-read must remove all of it.
func TestNoFalseDriftWhileLivePoolsWork(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	const ns = "conf-busy"
	c := srv.Dial()
	// 300 idle pools (heartbeats in the future, so no reaper touches them)
	// make the third round trip big: over a thousand commands, so Redis
	// reads it in several chunks and other clients' commands can land in
	// between.
	for i := 0; i < 300; i++ {
		id := fmt.Sprintf("idle%020d", i)
		_ = c.Send("SADD", ns+":worker_pools", id)
		_ = c.Send("HSET", ns+":worker_pools:"+id, "heartbeat_at", time.Now().Add(time.Hour).Unix(), "job_names", "tick-a")
	}
	if _, err := c.Do(""); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tick", "tock"} {
		gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 8, Hold: time.Millisecond,
			Jobs: []gcstate.JobType{{Name: name + "-a", Enqueue: 2000}, {Name: name + "-b", MaxConcurrency: 3, Enqueue: 2000}}})
	}
	fc := &flushCounter{Conn: c}
	cl := redisq.NewClient(redisq.OneConn(fc), ns, 0)
	var snaps, busy, reread int
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		before := fc.flushes
		snap, err := cl.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if fc.flushes-before > 3 {
			reread++
		}
		snaps++
		var inProgress, queued int64
		for _, jt := range snap.JobTypes {
			inProgress += jt.InProgress
			queued += jt.Queued
			if jt.Drift {
				t.Errorf("snapshot %d: drift on %s: lock %d, lock_info %d, in progress %d", snaps, jt.Name, jt.Lock, jt.LockInfoTotal, jt.InProgress)
			}
		}
		if inProgress > 0 {
			busy++
		}
		if inProgress == 0 && queued == 0 {
			break
		}
	}
	t.Logf("%d snapshots, %d with jobs in progress, %d needed the confirming re-read (apparent drift)", snaps, busy, reread)
	if busy == 0 {
		t.Error("no snapshot saw a job in progress: the test did not test anything")
	}
}

// flushCounter counts pipeline flushes (round trips).
type flushCounter struct {
	redis.Conn
	flushes int
}

func (f *flushCounter) Flush() error {
	f.flushes++
	return f.Conn.Flush()
}

func (f *flushCounter) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(f.Conn, ctx)
}

func (f *flushCounter) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	f.flushes++
	return redis.DoContext(f.Conn, ctx, cmd, args...)
}
