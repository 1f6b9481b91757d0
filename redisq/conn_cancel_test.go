package redisq_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// dialerConn is a connection of workq-tui's dialer with options o, closed
// when the test ends.
func dialerConn(t *testing.T, o redisq.Options) redis.Conn {
	t.Helper()
	d, err := redisq.NewDialer(o)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := d.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// blockedRead sends BLPOP of a list nobody pushes to (Redis answers after
// 30 s) and reads its reply with ctx in a goroutine; the error arrives on
// the channel returned. It returns once Redis holds the client blocked.
func blockedRead(t *testing.T, srv *redistest.Server, conn redis.Conn, ctx context.Context) <-chan error {
	t.Helper()
	if err := conn.Send("BLPOP", "never-pushed", 30); err != nil {
		t.Fatal(err)
	}
	if err := conn.Flush(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := redis.ReceiveContext(conn, ctx)
		done <- err
	}()
	admin := srv.Dial()
	defer admin.Close()
	for i := 0; ; i++ {
		n, err := redis.String(admin.Do("INFO", "clients"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(n, "blocked_clients:1") {
			return done
		}
		if i > 500 {
			t.Fatal("the BLPOP never blocked")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCancelEndsAReadWithoutAGoroutine: a read with a context that can be
// cancelled waits on the socket itself (no goroutine watches the context,
// unlike redigo's), ends with the context's error as soon as it is
// cancelled, and leaves a broken connection that a pool does not hand out
// again.
func TestCancelEndsAReadWithoutAGoroutine(t *testing.T) {
	srv := redistest.Start(t)
	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	pool := d.Pool()
	defer pool.Close()
	conn := pool.Get()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := runtime.NumGoroutine()
	done := blockedRead(t, srv, conn, ctx)
	if n := runtime.NumGoroutine(); n > before+1 {
		t.Errorf("%d goroutines while one read waits, %d before it: the read is watched by a goroutine of its own", n, before)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("read ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not end when its context was cancelled")
	}
	if conn.Err() == nil {
		t.Error("the interrupted connection says it is fine")
	}
	if err := conn.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if n := pool.IdleCount(); n != 0 {
		t.Errorf("the pool kept the interrupted connection (%d idle)", n)
	}
	fresh := pool.Get()
	defer fresh.Close()
	if v, err := redis.String(fresh.Do("PING")); err != nil || v != "PONG" {
		t.Fatalf("a fresh connection after the interrupted one: %q, %v", v, err)
	}
}

// TestCancellableReadsStillRead: with a context that can be cancelled and
// is not, and with one that has a deadline, replies are read as before and
// the connection stays usable; a context cancelled before the read fails it
// at once.
func TestCancellableReadsStillRead(t *testing.T) {
	srv := redistest.Start(t)
	conn := dialerConn(t, redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
	defer dcancel()
	for i, c := range []context.Context{ctx, dctx, context.Background()} {
		v, err := redis.String(redis.DoContext(conn, c, "ECHO", "hello"))
		if err != nil || v != "hello" {
			t.Fatalf("context %d: %q, %v", i, v, err)
		}
	}
	if conn.Err() != nil {
		t.Fatalf("the connection broke: %v", conn.Err())
	}
	cancel()
	if _, err := redis.DoContext(conn, ctx, "ECHO", "late"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a read with a cancelled context: %v", err)
	}
	if conn.Err() == nil {
		t.Error("a connection with an unread reply says it is fine")
	}
}
