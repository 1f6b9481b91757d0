package redisq

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// writeCounter counts the writes a socket was given.
type writeCounter struct {
	net.Conn
	writes atomic.Int64
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes.Add(1)
	return w.Conn.Write(p)
}

// dialCounted is a connection of the Dialer's shape (cancelConn over a
// deadlineNetConn) over a socket that counts its writes.
func dialCounted(t *testing.T, addr string) (redis.Conn, *writeCounter) {
	t.Helper()
	sock, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	wc := &writeCounter{Conn: sock}
	nc := newDeadlineNetConn(wc, 5*time.Second)
	c := &cancelConn{Conn: redis.NewConn(nc, 0, 0), nc: nc}
	t.Cleanup(func() { c.Close() })
	return c, wc
}

// Pipelined commands reach the socket 64 KB at a time, not in redigo's
// 4 KB pieces, and every reply comes back in order.
func TestConnWritesInLargePieces(t *testing.T) {
	srv := redistest.Start(t)
	c, wc := dialCounted(t, srv.Addr())
	value := bytes.Repeat([]byte("j"), 3500)
	const n = 1000 // 3.5 MB of commands
	for i := 0; i < n; i++ {
		if err := c.Send("SET", fmt.Sprintf("k%d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	rs := make([]reply, n)
	if err := receiveInto(context.Background(), c, rs); err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if s, err := redis.String(r.v, r.err); s != "OK" {
			t.Fatalf("reply %d: %q %v", i, s, err)
		}
	}
	if got, err := redis.Bytes(c.Do("GET", "k999")); err != nil || !bytes.Equal(got, value) {
		t.Fatalf("GET k999: %d bytes, %v", len(got), err)
	}
	if w := wc.writes.Load(); w > n*3500/(64<<10)+8 {
		t.Errorf("%d writes to the socket for %d KB, want about one per 64 KB", w, n*3500/1024)
	}
}

// What a caller flushed reaches Redis without a read on that connection:
// another connection sees it.
func TestConnFlushSendsWithoutARead(t *testing.T) {
	srv := redistest.Start(t)
	c, _ := dialCounted(t, srv.Addr())
	other := srv.Dial()
	defer other.Close()
	for _, size := range []int{10, 4096 - 30, 4096, 3 * 4096, 70 << 10} {
		key := fmt.Sprintf("flushed%d", size)
		if err := c.Send("SET", key, bytes.Repeat([]byte("v"), size)); err != nil {
			t.Fatal(err)
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			n, err := redis.Int(other.Do("STRLEN", key))
			if err != nil {
				t.Fatal(err)
			}
			if n == size {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a SET of %d bytes flushed and not seen by another connection", size)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
