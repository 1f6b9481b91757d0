package redisq

// Replies of many bulk strings (a walk's step: a thousand members and
// their scores) read without redigo: redigo allocates each element, and an
// interface to hold it, and a step of a walk is a few thousand of them.
// Here the elements go into buffers of the reader's, a slice of each.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/gomodule/redigo/redis"
)

// The replies a connection's redigo side still owes: the raw side reads
// only when it owes none, so nothing of redigo's is in the way. pendingLost
// is a count no longer known (a read or write failed): the raw side is then
// never used on the connection.
const pendingLost = -1

// Send is redigo's, counted.
func (c *cancelConn) Send(cmd string, args ...any) error {
	c.settleBulk()
	err := c.Conn.Send(cmd, args...)
	switch {
	case err != nil:
		c.pending = pendingLost
	case c.pending != pendingLost:
		c.pending++
	}
	return err
}

// Do is redigo's: it reads every reply still owed, then its own.
func (c *cancelConn) Do(cmd string, args ...any) (any, error) {
	c.settleBulk()
	v, err := c.Conn.Do(cmd, args...)
	c.readAll(err)
	return v, err
}

// Receive is redigo's, counted.
func (c *cancelConn) Receive() (any, error) {
	c.settleBulk()
	v, err := c.Conn.Receive()
	c.received(err)
	return v, err
}

// received counts a reply read: an error reply was read whole, any other
// error leaves the count unknown.
func (c *cancelConn) received(err error) {
	switch {
	case err != nil && !isErrorReply(err):
		c.pending = pendingLost
	case c.pending > 0:
		c.pending--
	}
}

// readAll counts a Do: every reply owed was read, unless it failed other
// than with an error reply.
func (c *cancelConn) readAll(err error) {
	if err != nil && !isErrorReply(err) {
		c.pending = pendingLost
	} else if c.pending != pendingLost {
		c.pending = 0
	}
}

// bulkArena holds the elements of bulk replies: each a slice of a buffer
// of at least bulkChunk bytes, never moved, so an element stays valid for
// as long as it is held. held: the buffer holds elements a caller keeps
// (hold), which reset leaves alone.
type bulkArena struct {
	buf  []byte
	held bool
}

// bulkChunk is the least a bulkArena allocates at once.
const bulkChunk = 64 << 10

// take returns n bytes of the arena's buffer, starting a new one when the
// buffer has not room for them.
func (a *bulkArena) take(n int) []byte {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(n, bulkChunk))
		a.held = false
	}
	at := len(a.buf)
	a.buf = a.buf[:at+n]
	return a.buf[at : at+n : at+n]
}

// hold says the caller keeps elements of the arena's buffer: reset then
// leaves it, and the arena writes on after them.
func (a *bulkArena) hold() { a.held = true }

// reset lets the arena write over its buffer, unless it holds elements a
// caller keeps (hold): the caller keeps none of the elements taken since.
func (a *bulkArena) reset() {
	if !a.held {
		a.buf = a.buf[:0]
	}
}

// bulkConnOf is the connection of the Dialer under c, when the raw side
// can read on it: its socket is not under TLS (redigo's TLS sits above
// the socket the Dialer watches).
func bulkConnOf(c redis.Conn) *cancelConn {
	switch cc := c.(type) {
	case *cancelConn:
		if cc.nc != nil && !cc.tls {
			return cc
		}
	case *readOnlyConn:
		return bulkConnOf(cc.Conn)
	}
	return nil
}

// sendBulk sends a command whose reply is an array of bulk strings, for
// receiveBulk to read: false (and nothing sent) when redigo still owes
// replies or the connection failed, so the caller sends it through redigo.
// Until receiveBulk has read the reply, the connection is used for nothing
// else (redigo's methods first read and drop it).
func (c *cancelConn) sendBulk(cmd string, args ...any) (bool, error) {
	if !c.bulkReady() {
		return false, nil
	}
	b := c.cmdBuf[:0]
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(1+len(args)), 10)
	b = append(b, "\r\n"...)
	b = appendBulk(b, cmd)
	for _, a := range args {
		switch v := a.(type) {
		case string:
			b = appendBulk(b, v)
		case []byte:
			b = appendBulk(b, string(v))
		case int:
			b = appendBulk(b, strconv.Itoa(v))
		case int64:
			b = appendBulk(b, strconv.FormatInt(v, 10))
		default:
			return false, fmt.Errorf("%s: argument of type %T", cmd, a)
		}
	}
	c.cmdBuf = b
	if _, err := c.nc.Write(b); err != nil {
		c.pending = pendingLost
		return true, fmt.Errorf("redis connection: %w", err)
	}
	if err := c.nc.flush(); err != nil {
		c.pending = pendingLost
		return true, fmt.Errorf("redis connection: %w", err)
	}
	c.bulkOwed++
	return true, nil
}

// bulkReady reports whether the raw side may send: redigo owes nothing,
// the raw side neither, and the connection has not failed.
func (c *cancelConn) bulkReady() bool {
	return c.pending == 0 && c.bulkOwed == 0 && c.Err() == nil
}

func appendBulk(b []byte, s string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, "\r\n"...)
	b = append(b, s...)
	return append(b, "\r\n"...)
}

// errBulkReply is a reply receiveBulk cannot read: the connection is then
// out of step, and closed for reading.
var errBulkReply = errors.New("unexpected reply")

// receiveBulk reads the reply of sendBulk's command, an array of bulk
// strings, appending its elements to dst, each a slice of a's buffers; an
// error reply comes back as redis.Error. It ends, as ReceiveContext does,
// with ctx.
func (c *cancelConn) receiveBulk(ctx context.Context, a *bulkArena, dst [][]byte) ([][]byte, error) {
	if c.bulkOwed == 0 {
		return dst, errors.New("redis connection: no reply owed")
	}
	c.bulkOwed--
	if err := ctx.Err(); err != nil {
		c.nc.interrupt()
		c.pending = pendingLost
		return dst, err
	}
	stop := context.AfterFunc(ctx, c.nc.interrupt)
	if dl, ok := ctx.Deadline(); ok {
		c.nc.read.Store(unixNano(dl))
	} else {
		c.nc.read.Store(0)
	}
	out, err := readBulks(c.nc.r, a, dst)
	if !stop() {
		c.pending = pendingLost
		return dst, ctx.Err()
	}
	if err != nil && !isErrorReply(err) {
		// Out of step with Redis: nothing more is read on it.
		c.nc.interrupt()
		c.pending = pendingLost
		return dst, fmt.Errorf("redis connection: %w", err)
	}
	return out, err
}

// settleBulk reads and drops the replies of sendBulk that receiveBulk did
// not read, before redigo reads the connection.
func (c *cancelConn) settleBulk() {
	for c.bulkOwed > 0 {
		c.bulkOwed--
		var a bulkArena
		if _, err := readBulks(c.nc.r, &a, nil); err != nil && !isErrorReply(err) {
			c.nc.interrupt()
			c.pending = pendingLost
			c.bulkOwed = 0
		}
	}
}

// readBulks reads one reply, an array of bulk strings, from r.
func readBulks(r *bufio.Reader, a *bulkArena, dst [][]byte) ([][]byte, error) {
	line, err := readLine(r)
	if err != nil {
		return dst, err
	}
	if len(line) == 0 {
		return dst, fmt.Errorf("%w: an empty line", errBulkReply)
	}
	switch line[0] {
	case '-':
		return dst, redis.Error(line[1:])
	case '*':
	default:
		return dst, fmt.Errorf("%w: %q", errBulkReply, truncate(string(line), 32))
	}
	n, err := strconv.Atoi(string(line[1:]))
	if err != nil || n < -1 {
		return dst, fmt.Errorf("%w: %q", errBulkReply, truncate(string(line), 32))
	}
	for i := 0; i < n; i++ {
		line, err := readLine(r)
		if err != nil {
			return dst, err
		}
		if len(line) == 0 || line[0] != '$' {
			return dst, fmt.Errorf("%w: element %q", errBulkReply, truncate(string(line), 32))
		}
		size, perr := strconv.Atoi(string(line[1:]))
		if perr != nil || size < 0 {
			return dst, fmt.Errorf("%w: element %q", errBulkReply, truncate(string(line), 32))
		}
		b := a.take(size)
		if _, err := io.ReadFull(r, b); err != nil {
			return dst, err
		}
		if end, err := readLine(r); err != nil || len(end) != 0 {
			return dst, errors.Join(errBulkReply, err)
		}
		dst = append(dst, b)
	}
	return dst, nil
}

// readLine reads a line of the protocol, without its CRLF.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: a line longer than %d bytes", errBulkReply, r.Size())
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: a line without CRLF", errBulkReply)
	}
	return line[:len(line)-2], nil
}
