package redistest

import (
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Do runs one command on c and fails the test when Redis answers with an
// error, naming the command and its arguments.
func Do(t testing.TB, c redis.Conn, cmd string, args ...any) any {
	t.Helper()
	v, err := c.Do(cmd, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return v
}

// Time is the server's clock (TIME), the clock gocraft/work's heartbeats
// and workq-tui's ages are measured against.
func Time(t testing.TB, c redis.Conn) time.Time {
	t.Helper()
	v, err := redis.Int64s(c.Do("TIME"))
	if err != nil || len(v) != 2 {
		t.Fatalf("TIME: %v %v", v, err)
	}
	return time.Unix(v[0], v[1]*1000)
}
