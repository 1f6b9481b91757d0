// Reads shared by the plans that read Redis (requeue, repair-locks): a
// key's type and an integer that may be absent.

package reaper

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// errNoKey is expectType's answer for a key that does not exist.
var errNoKey = errors.New("no such key")

// expectType checks a key's type: nil when it is want, errNoKey when the key
// does not exist, an ErrWrongType error otherwise.
func expectType(ctx context.Context, c redis.Conn, key, want string) error {
	t, err := redis.String(redis.DoContext(c, ctx, "TYPE", key))
	if err != nil {
		return fmt.Errorf("type %s: %w", key, err)
	}
	switch t {
	case want:
		return nil
	case "none":
		return errNoKey
	}
	return fmt.Errorf("%s is a %s, want a %s: %w", key, t, want, ErrWrongType)
}

// getInt reads an integer with GET key or HGET key field; present is false
// when there is no value.
func getInt(ctx context.Context, c redis.Conn, cmd string, args ...interface{}) (n int64, present bool, err error) {
	s, err := redis.String(redis.DoContext(c, ctx, cmd, args...))
	if errors.Is(err, redis.ErrNil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("%s %v: %w", strings.ToLower(cmd), args, err)
	}
	n, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		return 0, true, fmt.Errorf("%s %v holds %q: %w", strings.ToLower(cmd), args, s, ErrBadValue)
	}
	return n, true, nil
}
