package redisq_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// stallingProxy forwards a client to target and passes on only the first
// limit bytes of the replies; after that Redis seems to stop answering
// (limit 0: it never answers).
func stallingProxy(t *testing.T, target string, limit int64) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				return
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(up, c) }()
			go func() {
				defer wg.Done()
				_, _ = io.Copy(c, io.LimitReader(up, limit))
				_, _ = io.Copy(io.Discard, up) // hold the connection open, answer nothing more
			}()
		}
	}()
	return ln.Addr().String()
}

// waitErr runs f and returns its error; it fails the test when f has not
// returned long after the timeout (a missing deadline would hang forever).
func waitErr(t *testing.T, timeout time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(200 * timeout):
		t.Fatalf("the call still waits %s after a timeout of %s", 200*timeout, timeout)
		return nil
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestTimeoutBoundsEveryCall: connections of a Dialer set one deadline per
// round trip rather than one per command, and every call still ends with a
// timeout when Redis stops answering: before the first reply, in the middle
// of a long pipelined read, for plain and read-only connections.
func TestTimeoutBoundsEveryCall(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("tmo")
	for p := 0; p < 60; p++ {
		id := "pool" + string(rune('a'+p%26)) + string(rune('a'+p/26))
		if _, err := c.Do("SADD", k.WorkerPools(), id); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Do("HSET", k.Heartbeat(id), "heartbeat_at", 1, "job_names", "a,b,c", "host", "h", "pid", 1); err != nil {
			t.Fatal(err)
		}
		for _, j := range []string{"a", "b", "c"} {
			if _, err := c.Do("SADD", k.KnownJobs(), j); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Do("RPUSH", k.InProgress(j, id), `{"id":"x","t":1}`); err != nil {
				t.Fatal(err)
			}
		}
	}
	const timeout = 100 * time.Millisecond
	for _, tc := range []struct {
		name     string
		limit    int64
		readOnly bool
	}{
		{"no reply", 0, false},
		{"no reply, read-only", 0, true},
		{"stops in the middle of the snapshot", 3000, false},
		{"stops in the middle of the snapshot, read-only", 3000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := stallingProxy(t, srv.Addr(), tc.limit)
			d, err := redisq.NewDialer(redisq.Options{Address: addr, Timeout: timeout, ReadOnly: tc.readOnly})
			if err != nil {
				t.Fatal(err)
			}
			cl := redisq.NewDialerClient(d, "tmo", 0)
			defer cl.Close()
			err = waitErr(t, timeout, func() error {
				_, err := cl.Snapshot(context.Background())
				return err
			})
			if err == nil || !isTimeout(err) {
				t.Fatalf("snapshot: err %v, want a timeout", err)
			}
			// One command at a time (Do) and a pipelined read of its own.
			conn, err := d.Dial(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			err = waitErr(t, timeout, func() error { _, err := conn.Do("TIME"); return err })
			if tc.limit == 0 && (err == nil || !isTimeout(err)) {
				t.Fatalf("TIME: err %v, want a timeout", err)
			}
			if tc.limit == 0 {
				return
			}
			// The proxy passed the first bytes on: a long pipelined read
			// stalls once they are used up.
			err = waitErr(t, timeout, func() error {
				for i := 0; i < 2000; i++ {
					if err := conn.Send("LLEN", k.InProgress("a", "poolaa")); err != nil {
						return err
					}
				}
				if err := conn.Flush(); err != nil {
					return err
				}
				for i := 0; i < 2000; i++ {
					if _, err := conn.Receive(); err != nil {
						return err
					}
				}
				return nil
			})
			if err == nil || !isTimeout(err) {
				t.Fatalf("pipelined read: err %v, want a timeout", err)
			}
		})
	}
	// Through a Redis that answers, calls of every kind work, with replies
	// read well after the last deadline was set.
	conn := dialerConn(t, redisq.Options{Address: srv.Addr(), Timeout: timeout, ReadOnly: true})
	for i := 0; i < 1000; i++ {
		if err := conn.Send("LLEN", k.InProgress("a", "poolaa")); err != nil {
			t.Fatal(err)
		}
	}
	if err := conn.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * timeout) // longer than the deadline set at Flush
	for i := 0; i < 1000; i++ {
		if n, err := redis.Int(conn.Receive()); err != nil || n != 1 {
			t.Fatalf("reply %d: %v, %v", i, n, err)
		}
	}
	if _, err := redis.DoContext(conn, context.Background(), "TIME"); err != nil {
		t.Fatal(err)
	}
	if _, err := redis.DoWithTimeout(conn, time.Second, "TIME"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Do("SET", "x", 1); !errors.Is(err, redisq.ErrReadOnly) {
		t.Fatalf("SET on a read-only connection: %v", err)
	}
}
