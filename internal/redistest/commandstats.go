package redistest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
)

// CommandCalls is INFO commandstats as command name (lower case, without
// "cmdstat_"; "config|resetstat" for a subcommand) to calls since the
// server started or its last CONFIG RESETSTAT; the commands a script runs
// count too.
func CommandCalls(t testing.TB, c redis.Conn) map[string]int64 {
	t.Helper()
	return commandStats(t, c, "calls")
}

// CommandAttempts is CommandCalls with the calls Redis refused (an ACL, a
// read-only replica, a wrong number of arguments) counted too: what a
// client sent, whether or not it ran.
func CommandAttempts(t testing.TB, c redis.Conn) map[string]int64 {
	t.Helper()
	return commandStats(t, c, "calls", "rejected_calls")
}

// commandStats sums the named fields of each command's INFO commandstats
// line.
func commandStats(t testing.TB, c redis.Conn, fields ...string) map[string]int64 {
	t.Helper()
	info, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		name = strings.TrimPrefix(name, "cmdstat_")
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			for _, f := range fields {
				if k != f {
					continue
				}
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatalf("INFO commandstats: %q: %v", line, err)
				}
				out[name] += n
			}
		}
	}
	return out
}
