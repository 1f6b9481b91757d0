// Pipeline primitives: send many commands, flush once, read every reply
// with a per-command error kept apart from a connection error; drain what
// an early return left due; build per-pool keys without allocating.

package redisq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
)

// cmd is one command of a pipeline.
type cmd struct {
	name string
	args []any
}

// reply is one reply of a pipeline: a value, or the error reply of that
// command alone.
type reply struct {
	v   any
	err error
}

// pipeline sends the commands, flushes once and reads every reply: one round
// trip. A per-command error reply (redis.Error) is kept in its reply; any
// other error (connection, timeout, refused by a read-only connection) fails
// the whole pipeline.
func pipeline(ctx context.Context, conn redis.Conn, cmds []cmd) ([]reply, error) {
	for _, c := range cmds {
		if err := conn.Send(c.name, c.args...); err != nil {
			return nil, fmt.Errorf("send %s: %w", c.name, err)
		}
	}
	if err := conn.Flush(); err != nil {
		return nil, fmt.Errorf("send to redis: %w", err)
	}
	out := make([]reply, len(cmds))
	if err := receiveInto(ctx, conn, out); err != nil {
		return nil, err
	}
	return out, nil
}

func sendCmds(conn redis.Conn, cmds ...cmd) (int, error) {
	for i, c := range cmds {
		if err := conn.Send(c.name, c.args...); err != nil {
			return i, fmt.Errorf("send %s: %w", c.name, err)
		}
	}
	return len(cmds), nil
}

// receiveInto reads len(out) replies. A per-command error reply is kept in
// its reply; any other error fails the whole read.
//
// Only the first reply (the wait for Redis to start answering) is read with
// ReceiveContext, so that cancelling ctx ends the wait: on a connection of
// the Dialer that watches the socket (cancelConn), on another one redigo
// starts a goroutine per call. The others are read with the time left until
// ctx's deadline (the connection's own read timeout without one), and ctx
// is checked between replies. A context that cannot be cancelled
// (context.Background) is not watched at all.
//
// The switch pays for itself: reading every reply with ReceiveContext, even
// on a connection that watches the socket, costs a context.AfterFunc and its
// allocations per reply. Measured that way, 20,000 replies took about twice
// as long on a connection of the Dialer, and make bench line 1b (the
// snapshot process) went from 1.51-1.74x to 2.15-2.62x.
func receiveInto(ctx context.Context, conn redis.Conn, out []reply) error {
	cwt, _ := conn.(redis.ConnWithTimeout)
	dl, hasDeadline := ctx.Deadline()
	for i := range out {
		var v any
		var err error
		switch {
		case ctx.Done() == nil:
			// A context that can never be cancelled has nothing to wait
			// for beside the reply.
			v, err = conn.Receive()
		case i == 0 || cwt == nil:
			v, err = redis.ReceiveContext(conn, ctx)
		case i%256 == 0 && ctx.Err() != nil:
			err = ctx.Err()
		case hasDeadline:
			left := time.Until(dl)
			if left <= 0 {
				err = context.DeadlineExceeded
				break
			}
			v, err = cwt.ReceiveWithTimeout(left)
		default:
			v, err = conn.Receive()
		}
		if err != nil && !isErrorReply(err) {
			return fmt.Errorf("read from redis: %w", err)
		}
		out[i] = reply{v: v, err: err}
	}
	return nil
}

// isErrorReply reports whether err is an error reply of one command (as
// opposed to a connection error). A function of its own, so that the
// target of errors.As is not allocated for every reply.
func isErrorReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// drain reads and drops n replies still due on conn after an early return,
// so that the connection can be used again; errors end it quietly.
func drain(ctx context.Context, conn redis.Conn, n int) {
	if n <= 0 {
		return
	}
	if err := conn.Flush(); err != nil {
		return
	}
	buf := make([]reply, min(n, 1024))
	for n > 0 {
		k := min(n, len(buf))
		if receiveInto(ctx, conn, buf[:k]) != nil {
			return
		}
		n -= k
	}
}

// keyBuf builds prefix+id+suffix keys in one reused buffer, for commands
// that take one key each (LLEN and HGETALL of every pool): Send writes the
// command out before it returns and keeps nothing, so the next key may
// overwrite the last. The key goes to Send as a []byte held in an interface
// made again only when the key's length changes (never, when all pool IDs
// are as long, as gocraft/work's are), so that building and sending 20,000
// keys allocates nothing per key.
type keyBuf struct {
	prefix, suffix string
	buf            []byte
	args           []any
}

func newKeyBuf(prefix string, ids []string, suffix string) *keyBuf {
	longest := 0
	for _, id := range ids {
		longest = max(longest, len(id))
	}
	return &keyBuf{prefix: prefix, suffix: suffix, buf: make([]byte, 0, len(prefix)+longest+len(suffix)), args: make([]any, 1)}
}

// arg is the argument list of a command on the key of id, valid until the
// next call.
func (k *keyBuf) arg(id string) []any {
	b := append(append(append(k.buf[:0], k.prefix...), id...), k.suffix...)
	if prev, ok := k.args[0].([]byte); !ok || len(prev) != len(b) {
		k.args[0] = b // the buffer is long enough for every key: b is k.buf's array
	}
	return k.args
}
