package redistest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
)

// CommandCalls is INFO commandstats as command name (lower case, without
// "cmdstat_") to calls since the server started or its last CONFIG
// RESETSTAT; the commands a script runs count too.
func CommandCalls(t testing.TB, c redis.Conn) map[string]int64 {
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
		for _, kv := range strings.Split(rest, ",") {
			if k, v, _ := strings.Cut(kv, "="); k == "calls" {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatalf("INFO commandstats: %q: %v", line, err)
				}
				out[strings.TrimPrefix(name, "cmdstat_")] = n
			}
		}
	}
	return out
}
