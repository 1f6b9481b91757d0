// Reply readers: Redis TIME, error replies (WRONGTYPE, NOPERM, NOAUTH) and
// what they mean for a snapshot, sets and integers.

package redisq

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// errorReplyIs reports whether err is (or wraps) an error reply of Redis
// that starts with code: "WRONGTYPE", "NOPERM", "NOAUTH", ...
func errorReplyIs(err error, code string) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(string(re), code)
}

// isWrongType reports a WRONGTYPE error reply: a key of another type.
func isWrongType(err error) bool { return errorReplyIs(err, "WRONGTYPE") }

// isNoPerm reports a NOPERM error reply: the ACL user may not do that.
func isNoPerm(err error) bool { return errorReplyIs(err, "NOPERM") }

// fatalReply turns an error reply other than WRONGTYPE into an error: the
// snapshot cannot be trusted when Redis refuses to answer (NOAUTH, NOPERM,
// LOADING, ...).
func fatalReply(r reply, what string) error {
	if r.err == nil || isWrongType(r.err) {
		return nil
	}
	msg := r.err.Error()
	switch {
	case strings.HasPrefix(msg, "NOAUTH"):
		return fmt.Errorf("read %s: authentication required: set REDIS_PASSWORD or --password-file (%s)", what, msg)
	case strings.HasPrefix(msg, "NOPERM"):
		return fmt.Errorf("read %s: the Redis user may not read it (%s)", what, msg)
	}
	return fmt.Errorf("read %s: %w", what, r.err)
}

func fatalReplies(rs []reply, what string) error {
	for _, r := range rs {
		if r.err == nil {
			continue
		}
		if err := fatalReply(r, "job type "+what); err != nil {
			return err
		}
	}
	return nil
}

// Time reads Redis's clock (TIME): the workers' clock, which is what
// heartbeats are compared with, not the operator's.
func Time(ctx context.Context, conn redis.Conn) (time.Time, error) {
	v, err := redis.DoContext(conn, ctx, "TIME")
	return timeReply(reply{v: v, err: err})
}

// timeReply reads the reply of TIME.
func timeReply(r reply) (time.Time, error) {
	if r.err != nil {
		return time.Time{}, fmt.Errorf("redis TIME: %w", r.err)
	}
	parts, err := redis.Int64s(r.v, nil)
	if err != nil || len(parts) != 2 {
		return time.Time{}, fmt.Errorf("redis TIME: unexpected reply %v", r.v)
	}
	return time.Unix(parts[0], parts[1]*1000), nil
}

// setMembers reads an SMEMBERS reply; a key of the wrong type is a warning.
func setMembers(r reply, key string) ([]string, []string, error) {
	if r.err != nil {
		if isWrongType(r.err) {
			return nil, []string{fmt.Sprintf("%s is not a set (%v)", key, r.err)}, nil
		}
		return nil, nil, fatalReply(r, key)
	}
	m, err := redis.Strings(r.v, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", key, err)
	}
	return m, nil, nil
}

// intReply reads an integer reply or a string holding an integer; nil is 0.
func intReply(r reply) (int64, error) {
	if r.err != nil {
		return 0, r.err
	}
	switch v := r.v.(type) {
	case nil:
		return 0, nil
	case int64:
		return v, nil
	case []byte:
		n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", truncate(string(v), 40))
		}
		return n, nil
	}
	return 0, fmt.Errorf("unexpected reply %T", r.v)
}

// parseIntBytes is strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
// without a string for the common case (a plain decimal).
func parseIntBytes(b []byte) (int64, error) {
	if len(b) > 0 && len(b) <= 18 {
		var n int64
		neg := b[0] == '-'
		digits := b
		if neg {
			digits = b[1:]
		}
		ok := len(digits) > 0
		for _, c := range digits {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if ok {
			if neg {
				n = -n
			}
			return n, nil
		}
	}
	return strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
