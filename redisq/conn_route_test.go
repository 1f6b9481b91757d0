package redisq

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestDialAddrKeepsTheDialersSettings: a node named by another source is
// dialled with the dialer's database, read-only guard and TLS, and the
// guard lets ROLE and INFO through (a Sentinel check sends them).
func TestDialAddrKeepsTheDialersSettings(t *testing.T) {
	a, b := redistest.Start(t), redistest.Start(t)
	bc := b.Dial()
	redistest.Do(t, bc, "SELECT", 2)
	redistest.Do(t, bc, "SET", "where", "b-db2")

	d, err := NewDialer(Options{Address: a.Addr(), DB: 2, ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.DialAddr(context.Background(), b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := redis.String(c.Do("GET", "where")); err != nil || got != "b-db2" {
		t.Fatalf("GET on the dialled node: %q, %v; want b-db2 from database 2", got, err)
	}
	if _, err := c.Do("SET", "where", "x"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("SET through a read-only dialer: %v, want ErrReadOnly", err)
	}
	if _, err := redis.Values(c.Do("ROLE")); err != nil {
		t.Fatalf("ROLE: %v", err)
	}
	if _, err := redis.String(c.Do("INFO", "replication")); err != nil {
		t.Fatalf("INFO: %v", err)
	}
	if _, err := d.DialAddr(context.Background(), "no-port"); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Fatalf("a bad address: %v", err)
	}
	_, err = d.DialAddr(context.Background(), "127.0.0.1:"+strconv.Itoa(redistest.FreePort(t)))
	if err == nil || !strings.Contains(err.Error(), "connect to redis at 127.0.0.1:") {
		t.Fatalf("a node that is down: %v, want an error naming it", err)
	}

	srv, files := redistest.StartTLS(t)
	td, err := NewDialer(Options{Address: "rediss://localhost:1", TLSCAFile: files.CAFile, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := td.DialAddr(context.Background(), srv.Addr())
	if err != nil {
		t.Fatalf("DialAddr over TLS, certificate checked against the node's host: %v", err)
	}
	defer tc.Close()
	if _, err := tc.Do("PING"); err != nil {
		t.Fatal(err)
	}
}

type countingRouter struct {
	d     *Dialer
	addr  string
	dials atomic.Int32
}

func (r *countingRouter) DialRouted(ctx context.Context) (redis.Conn, error) {
	r.dials.Add(1)
	return r.d.DialAddr(ctx, r.addr)
}

// TestWithRouter: Dial and Pool of a routed dialer connect where the router
// says, each time (no idle connection outlives a move); the original
// dialer is unchanged.
func TestWithRouter(t *testing.T) {
	a, b := redistest.Start(t), redistest.Start(t)
	redistest.Do(t, a.Dial(), "SET", "where", "a")
	redistest.Do(t, b.Dial(), "SET", "where", "b")
	d, err := NewDialer(Options{Address: a.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := &countingRouter{d: d, addr: b.Addr()}
	routed := d.WithRouter(r, b.Addr())
	if got := routed.Endpoint().HostPort; got != b.Addr() {
		t.Fatalf("routed endpoint %s, want %s", got, b.Addr())
	}
	where := func(get func(context.Context) (redis.Conn, error)) string {
		t.Helper()
		c, err := get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := redis.String(redis.DoContext(c, context.Background(), "GET", "where"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := where(routed.Dial); got != "b" {
		t.Fatalf("routed Dial reached %s", got)
	}
	if got := where(d.Dial); got != "a" {
		t.Fatalf("the original dialer reached %s", got)
	}
	pool := routed.Pool()
	defer pool.Close()
	for i := 0; i < 2; i++ {
		if got := where(pool.GetContext); got != "b" {
			t.Fatalf("routed pool reached %s", got)
		}
	}
	r.addr = a.Addr()
	if got := where(pool.GetContext); got != "a" {
		t.Fatalf("after the router moved, the pool reached %s", got)
	}
	if n := r.dials.Load(); n != 4 {
		t.Fatalf("the router dialled %d times, want 4 (one per Dial and per pool Get)", n)
	}
}
