// The read-only guard: a connection that refuses every command outside an
// allow-list of reads before anything is sent.

package redisq

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// readAllow is every command a read-only connection may send.
var readAllow = map[string]bool{
	"GET": true, "MGET": true, "STRLEN": true, "EXISTS": true, "TYPE": true, "TTL": true, "PTTL": true,
	"HGET": true, "HMGET": true, "HGETALL": true, "HLEN": true, "HKEYS": true, "HVALS": true, "HEXISTS": true, "HSCAN": true,
	"LLEN": true, "LINDEX": true, "LRANGE": true,
	"SMEMBERS": true, "SCARD": true, "SISMEMBER": true, "SSCAN": true,
	"ZCARD": true, "ZRANGE": true, "ZRANK": true, "ZRANGEBYSCORE": true, "ZREVRANGEBYSCORE": true, "ZCOUNT": true, "ZSCORE": true, "ZSCAN": true,
	"SCAN": true, "TIME": true, "PING": true, "DBSIZE": true,
	// What a Sentinel deployment is checked with: a node's role, and the
	// replication offsets of a replica's lag.
	"ROLE": true, "INFO": true,
	"": true, // redigo's flush-and-receive
}

// IsReadCommand reports whether a read-only connection lets cmd through.
func IsReadCommand(cmd string) bool { return readAllow[strings.ToUpper(cmd)] }

// ReadOnlyConn wraps a connection so that every command outside the read
// allow-list fails with ErrReadOnly before anything is sent.
func ReadOnlyConn(c redis.Conn) redis.Conn { return &readOnlyConn{Conn: c} }

type readOnlyConn struct{ redis.Conn }

func refuse(cmd string) error { return fmt.Errorf("%s: %w", strings.ToUpper(cmd), ErrReadOnly) }

func (c *readOnlyConn) Do(cmd string, args ...interface{}) (interface{}, error) {
	if !IsReadCommand(cmd) {
		return nil, refuse(cmd)
	}
	return c.Conn.Do(cmd, args...)
}

func (c *readOnlyConn) Send(cmd string, args ...interface{}) error {
	if !IsReadCommand(cmd) {
		return refuse(cmd)
	}
	return c.Conn.Send(cmd, args...)
}

func (c *readOnlyConn) DoContext(ctx context.Context, cmd string, args ...interface{}) (interface{}, error) {
	if !IsReadCommand(cmd) {
		return nil, refuse(cmd)
	}
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *readOnlyConn) DoWithTimeout(d time.Duration, cmd string, args ...interface{}) (interface{}, error) {
	if !IsReadCommand(cmd) {
		return nil, refuse(cmd)
	}
	return redis.DoWithTimeout(c.Conn, d, cmd, args...)
}

func (c *readOnlyConn) ReceiveContext(ctx context.Context) (interface{}, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

func (c *readOnlyConn) ReceiveWithTimeout(d time.Duration) (interface{}, error) {
	return redis.ReceiveWithTimeout(c.Conn, d)
}
