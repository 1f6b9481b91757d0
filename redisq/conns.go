// Connection sources: the one interface that hands out connections
// (Conns, which *redis.Pool satisfies) and OneConn, which lends a single
// connection through it without letting callers close it.

package redisq

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Conns hands out connections; *redis.Pool (for example Dialer.Pool())
// satisfies it, and OneConn wraps a single connection.
type Conns interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

// OneConn makes one connection usable as Conns: every GetContext returns it,
// and closing what GetContext returned does not close it. It is for callers
// that hold a connection of their own (tests, a reaper inside one session).
// Like the connection itself, it is for one goroutine at a time.
func OneConn(c redis.Conn) Conns { return oneConn{c} }

type oneConn struct{ c redis.Conn }

func (o oneConn) GetContext(context.Context) (redis.Conn, error) { return noClose{o.c}, nil }

type noClose struct{ redis.Conn }

func (noClose) Close() error { return nil }

func (c noClose) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c noClose) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

func (c noClose) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	return redis.DoWithTimeout(c.Conn, d, cmd, args...)
}

func (c noClose) ReceiveWithTimeout(d time.Duration) (any, error) {
	return redis.ReceiveWithTimeout(c.Conn, d)
}
