package redisq

// Reads that end when their context is cancelled, without a goroutine per
// read.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// errInterrupted is the socket error of a read a cancelled context ended.
var errInterrupted = errors.New("read interrupted: its context was cancelled")

// interrupt makes the socket's reads fail from now on: the one waiting
// returns at once (its deadline is moved to the past) and later ones do not
// start. The connection is then broken, as redigo leaves one whose read a
// context ended.
func (c *deadlineNetConn) interrupt() {
	c.interrupted.Store(true)
	_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
}

// cancelConn is a connection of the Dialer. redigo watches the context of
// each ReceiveContext with a goroutine of its own, a hand-off between
// threads that costs about as much as reading a page of 20 jobs; here the
// read waits on the socket itself, and a cancelled context interrupts the
// socket (context.AfterFunc, no goroutine until it is cancelled).
type cancelConn struct {
	redis.Conn
	nc *deadlineNetConn
	// tls: redigo's TLS is above nc, so its bytes are not the protocol's.
	tls bool

	// pending is the replies redigo owes (pendingLost when not known),
	// bulkOwed those of sendBulk; cmdBuf is sendBulk's last command (see
	// conn_bulk.go).
	pending  int
	bulkOwed int
	cmdBuf   []byte
}

// ReceiveContext reads one reply, within ctx's deadline, and ends early
// with ctx's error when ctx is cancelled; the connection is then broken
// (Err says so, and a pool drops it).
func (c *cancelConn) ReceiveContext(ctx context.Context) (any, error) {
	c.settleBulk()
	v, err := c.receiveContext(ctx)
	c.received(err)
	return v, err
}

func (c *cancelConn) receiveContext(ctx context.Context) (any, error) {
	if err := ctx.Err(); err != nil {
		c.nc.interrupt()
		return nil, err
	}
	stop := context.AfterFunc(ctx, c.nc.interrupt)
	var v any
	var err error
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		if left <= 0 {
			stop()
			c.nc.interrupt()
			return nil, context.DeadlineExceeded
		}
		v, err = redis.ReceiveWithTimeout(c.Conn, left)
	} else {
		v, err = c.Conn.Receive()
	}
	if !stop() {
		// ctx was cancelled during the read: whatever it returned, the
		// socket is interrupted.
		return nil, ctx.Err()
	}
	return v, err
}

// DoContext sends one command and reads its reply as ReceiveContext does.
func (c *cancelConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	if err := c.Send(cmd, args...); err != nil {
		return nil, err
	}
	if err := c.Conn.Flush(); err != nil {
		c.pending = pendingLost
		return nil, err
	}
	return c.ReceiveContext(ctx)
}

// ReceiveWithTimeout and DoWithTimeout are redigo's: the connection keeps
// every way of reading its own connection offers.
func (c *cancelConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	c.settleBulk()
	v, err := redis.ReceiveWithTimeout(c.Conn, d)
	c.received(err)
	return v, err
}

func (c *cancelConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	c.settleBulk()
	v, err := redis.DoWithTimeout(c.Conn, d, cmd, args...)
	c.readAll(err)
	return v, err
}

// Flush sends what Send buffered: redigo writes it to the socket's own
// buffer (deadlineNetConn.Write), which is then written out.
func (c *cancelConn) Flush() error {
	if err := c.Conn.Flush(); err != nil {
		c.pending = pendingLost
		return err
	}
	if err := c.nc.flush(); err != nil {
		c.pending = pendingLost
		return fmt.Errorf("redis connection: %w", err)
	}
	return nil
}

// Err is the connection's error: also set once a read was interrupted.
func (c *cancelConn) Err() error {
	if err := c.Conn.Err(); err != nil {
		return err
	}
	if c.nc.interrupted.Load() {
		return fmt.Errorf("redis connection: %w", errInterrupted)
	}
	if err := c.nc.writeErr(); err != nil {
		return fmt.Errorf("redis connection: %w", err)
	}
	return nil
}
