package redisq

// A connection that counts what goes through it: the screen's polls say
// what they cost Redis (the help shows it).

import (
	"context"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// meteredConn counts into cost the commands sent on its connection, the
// round trips (a flush, or a Do), the bytes of the replies and the time
// spent waiting for them. metered gives it the waits the connection has
// (ReceiveContext, ReceiveWithTimeout), and no other, so that reading
// through it takes the same paths as reading the connection itself.
type meteredConn struct {
	redis.Conn
	cost    *model.ReadCost
	pending bool
}

func (c *meteredConn) Send(name string, args ...any) error {
	c.cost.Commands++
	c.pending = true
	return c.Conn.Send(name, args...)
}

func (c *meteredConn) Flush() error {
	if c.pending {
		c.cost.RoundTrips++
		c.pending = false
	}
	return c.Conn.Flush()
}

func (c *meteredConn) Do(name string, args ...any) (any, error) {
	c.count(name)
	start := time.Now()
	v, err := c.Conn.Do(name, args...)
	return c.took(start, v, err)
}

func (c *meteredConn) Receive() (any, error) {
	start := time.Now()
	v, err := c.Conn.Receive()
	return c.took(start, v, err)
}

// metered is conn counting into cost. It waits with a timeout, or until a
// context ends, only where conn does: receiveInto and redigo ask which.
func metered(conn redis.Conn, cost *model.ReadCost) redis.Conn {
	m := &meteredConn{Conn: conn, cost: cost}
	_, timeout := conn.(redis.ConnWithTimeout)
	_, ctx := conn.(redis.ConnWithContext)
	switch {
	case timeout && ctx:
		return meteredBoth{m}
	case timeout:
		return meteredTimeout{m}
	case ctx:
		return meteredContext{m}
	}
	return m
}

// meteredTimeout, meteredContext and meteredBoth add the waits conn
// offers.
type (
	meteredTimeout struct{ *meteredConn }
	meteredContext struct{ *meteredConn }
	meteredBoth    struct{ *meteredConn }
)

func (c meteredTimeout) ReceiveWithTimeout(d time.Duration) (any, error) {
	return c.receiveWithTimeout(d)
}

func (c meteredTimeout) DoWithTimeout(d time.Duration, name string, args ...any) (any, error) {
	return c.doWithTimeout(d, name, args...)
}

func (c meteredContext) ReceiveContext(ctx context.Context) (any, error) {
	return c.receiveContext(ctx)
}

func (c meteredContext) DoContext(ctx context.Context, name string, args ...any) (any, error) {
	return c.doContext(ctx, name, args...)
}

func (c meteredBoth) ReceiveWithTimeout(d time.Duration) (any, error) {
	return c.receiveWithTimeout(d)
}

func (c meteredBoth) DoWithTimeout(d time.Duration, name string, args ...any) (any, error) {
	return c.doWithTimeout(d, name, args...)
}

func (c meteredBoth) ReceiveContext(ctx context.Context) (any, error) {
	return c.receiveContext(ctx)
}

func (c meteredBoth) DoContext(ctx context.Context, name string, args ...any) (any, error) {
	return c.doContext(ctx, name, args...)
}

func (c *meteredConn) doWithTimeout(d time.Duration, name string, args ...any) (any, error) {
	c.count(name)
	start := time.Now()
	v, err := redis.DoWithTimeout(c.Conn, d, name, args...)
	return c.took(start, v, err)
}

func (c *meteredConn) doContext(ctx context.Context, name string, args ...any) (any, error) {
	c.count(name)
	start := time.Now()
	v, err := redis.DoContext(c.Conn, ctx, name, args...)
	return c.took(start, v, err)
}

// count counts a Do: its command, if any, and its round trip.
func (c *meteredConn) count(name string) {
	if name != "" {
		c.cost.Commands++
	}
	c.cost.RoundTrips++
	c.pending = false
}

func (c *meteredConn) receiveWithTimeout(d time.Duration) (any, error) {
	start := time.Now()
	v, err := redis.ReceiveWithTimeout(c.Conn, d)
	return c.took(start, v, err)
}

func (c *meteredConn) receiveContext(ctx context.Context) (any, error) {
	start := time.Now()
	v, err := redis.ReceiveContext(c.Conn, ctx)
	return c.took(start, v, err)
}

// took counts one reply that was waited for since start.
func (c *meteredConn) took(start time.Time, v any, err error) (any, error) {
	c.cost.Waited += time.Since(start)
	c.cost.ReplyBytes += replySize(v)
	var re redis.Error
	if errors.As(err, &re) {
		c.cost.ReplyBytes += int64(len(re))
	}
	return v, err
}

// replySize is about what a reply took on the wire: its bulk strings'
// bytes, 8 for a number, the sum of an array's.
func replySize(v any) int64 {
	switch v := v.(type) {
	case []byte:
		return int64(len(v))
	case string:
		return int64(len(v))
	case int64:
		return 8
	case []any:
		var n int64
		for _, e := range v {
			n += replySize(e)
		}
		return n
	}
	return 0
}

var (
	_ redis.ConnWithTimeout = meteredTimeout{}
	_ redis.ConnWithContext = meteredContext{}
	_ redis.ConnWithTimeout = meteredBoth{}
	_ redis.ConnWithContext = meteredBoth{}
)
