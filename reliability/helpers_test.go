package reliability_test

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// stress reports whether the long versions run (make stress).
func stress() bool { return os.Getenv("WORKQ_STRESS") == "1" }

func TestMain(m *testing.M) { os.Exit(redistest.Main(m)) }

// runCLI runs the built workq-tui (without -race: the kill -9 test needs a
// binary that runs at normal speed) with args and extra environment; stdin
// is empty (not a terminal).
func runCLI(t testing.TB, env []string, args ...string) redistest.Result {
	t.Helper()
	return redistest.Run(t, redistest.Binary(t), env, args...)
}

// oneLine fails unless s is exactly one line of text (ending in a newline).
func oneLine(t testing.TB, what, s string) {
	t.Helper()
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		t.Fatalf("%s: want one line, got %q", what, s)
	}
}

// ---- write detection: INFO commandstats after CONFIG RESETSTAT ----

// scriptCommands run code on the server; any call of them is a failure in
// read-only mode whatever the script does.
var scriptCommands = map[string]bool{
	"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true,
	"script": true, "fcall": true, "fcall_ro": true, "function": true,
}

// hardWrites is a fixed list of writing commands, checked besides the
// server's own "write" flag, so that the check does not depend on COMMAND
// INFO alone.
var hardWrites = map[string]bool{
	"set": true, "setnx": true, "setex": true, "psetex": true, "getset": true, "getdel": true, "getex": true, "mset": true, "msetnx": true,
	"append": true, "incr": true, "incrby": true, "incrbyfloat": true, "decr": true, "decrby": true, "del": true, "unlink": true,
	"expire": true, "pexpire": true, "expireat": true, "pexpireat": true, "persist": true, "rename": true, "renamenx": true,
	"move": true, "copy": true, "restore": true, "sort": true,
	"lpush": true, "rpush": true, "lpushx": true, "rpushx": true, "lpop": true, "rpop": true, "rpoplpush": true, "lmove": true,
	"blpop": true, "brpop": true, "brpoplpush": true, "blmove": true, "lrem": true, "lset": true, "ltrim": true, "linsert": true,
	"hset": true, "hsetnx": true, "hmset": true, "hdel": true, "hincrby": true, "hincrbyfloat": true,
	"sadd": true, "srem": true, "smove": true, "spop": true, "sinterstore": true, "sunionstore": true, "sdiffstore": true,
	"zadd": true, "zrem": true, "zincrby": true, "zpopmin": true, "zpopmax": true, "zremrangebyscore": true, "zremrangebyrank": true,
	"flushdb": true, "flushall": true, "swapdb": true, "multi": true, "exec": true,
}

// writeFlagged asks the server whether a command is flagged "write".
func writeFlagged(t testing.TB, c redis.Conn, name string) bool {
	t.Helper()
	base, _, _ := strings.Cut(name, "|")
	v, err := redis.Values(c.Do("COMMAND", "INFO", base))
	if err != nil || len(v) == 0 || v[0] == nil {
		return false
	}
	info, err := redis.Values(v[0], nil)
	if err != nil || len(info) < 3 {
		return false
	}
	flags, _ := redis.Strings(info[2], nil)
	for _, f := range flags {
		if f == "write" {
			return true
		}
	}
	return false
}

// writeWatch measures what a stretch of work sent to Redis.
type writeWatch struct {
	c     redis.Conn
	dirty int64
}

func dirty(t testing.TB, c redis.Conn) int64 {
	t.Helper()
	info, err := redis.String(c.Do("INFO", "persistence"))
	if err != nil {
		t.Fatalf("INFO persistence: %v", err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "rdb_changes_since_last_save:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatalf("no rdb_changes_since_last_save in INFO persistence")
	return 0
}

// watchWrites resets the command statistics; call it after the test has
// written its data and before the code under test runs.
func watchWrites(t testing.TB, c redis.Conn) *writeWatch {
	t.Helper()
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	return &writeWatch{c: c, dirty: dirty(t, c)}
}

// check reads INFO commandstats and fails on any write or script command
// (by the server's flag or by the fixed list) and on any change of the
// dirty counter. It returns the commands seen (the test's own CONFIG and
// INFO left out) and the number of write commands seen (0 unless failed).
func (w *writeWatch) check(t testing.TB) (seen map[string]int64, writes int64) {
	t.Helper()
	stats := redistest.CommandAttempts(t, w.c)
	seen = map[string]int64{}
	var bad []string
	for name, n := range stats {
		base, _, _ := strings.Cut(name, "|")
		if base == "config" || base == "info" || base == "command" {
			continue
		}
		seen[name] = n
		if scriptCommands[base] || hardWrites[base] || writeFlagged(t, w.c, name) {
			bad = append(bad, fmt.Sprintf("%s x%d", name, n))
			writes += n
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("write or script commands reached Redis: %s (all: %v)", strings.Join(bad, ", "), seen)
	}
	if d := dirty(t, w.c); d != w.dirty {
		t.Errorf("Redis's dirty counter went from %d to %d: something was written", w.dirty, d)
	}
	return seen, writes
}

// startTmux runs the built workq-tui with args in a w x h terminal.
func startTmux(t testing.TB, w, h int, env []string, args ...string) *redistest.Tmux {
	t.Helper()
	return redistest.StartTmux(t, w, h, env, append([]string{redistest.Binary(t)}, args...)...)
}

// ---- state ----

// jobJSON is a gocraft/work job.
func jobJSON(name, id string, t int64, args string) string {
	return fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":%s}`, name, id, t, args)
}

// writeHeartbeat writes a gocraft/work heartbeat and adds the pool to the
// set.
func writeHeartbeat(t testing.TB, c redis.Conn, ns, pool string, at int64, host string, jobs ...string) {
	t.Helper()
	p := prefix(ns)
	redistest.Do(t, c, "SADD", p+"worker_pools", pool)
	redistest.Do(t, c, "HSET", p+"worker_pools:"+pool, "heartbeat_at", at, "started_at", at-3600,
		"job_names", strings.Join(jobs, ","), "concurrency", 10, "worker_ids", "w1,w2", "host", host, "pid", 4242)
	for _, j := range jobs {
		redistest.Do(t, c, "SADD", p+"known_jobs", j)
	}
}

func prefix(ns string) string {
	if ns != "" && !strings.HasSuffix(ns, ":") {
		return ns + ":"
	}
	return ns
}
