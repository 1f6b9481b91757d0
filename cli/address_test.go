package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestWriteRefusedByACLNamesAddress: a Redis user that may read but not run
// scripts gets every write refused with NOPERM; the one-line error of every
// command names the Redis address, as every exit-1 error does.
func TestWriteRefusedByACLNamesAddress(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	const dead = "deaddeaddeaddeaddeaddead"
	srv.Do("SADD", k.KnownJobs(), "mail")
	srv.Do("SADD", k.WorkerPools(), dead)
	srv.Do("HSET", k.Heartbeat(dead), "heartbeat_at", 1, "job_names", "mail")
	srv.Do("RPUSH", k.InProgress("mail", dead), "j1")
	srv.Do("SET", k.Lock("mail"), 5)
	orphan := k.InProgress("mail", "0123456789abcdef01234567")
	srv.Do("RPUSH", orphan, "j2")
	srv.Do("ACL", "SETUSER", "ops", "on", ">ops-pw-4711", "~*", "&*", "+@all", "-eval", "-evalsha", "-eval_ro", "-evalsha_ro", "-script", "-fcall")
	c := srv.Dial()
	before := redistest.Dump(t, c, "*")
	password := func(k string) string {
		if k == "REDIS_PASSWORD" {
			return "ops-pw-4711"
		}
		return ""
	}
	conn := []string{"--redis=" + srv.Addr(), "--user=ops"}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"reap", []string{"reap", "--yes", dead}},
		{"requeue", []string{"requeue", "--yes", orphan}},
		{"repair-locks", []string{"repair-locks", "--yes", "mail"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, input{getenv: password}, append(conn, tc.args...)...)
			if code != ExitError || !strings.Contains(stderr, "NOPERM") || errorLines(stderr) != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 1 and one NOPERM line", code, stderr)
			}
			if n := strings.Count(stderr, srv.Addr()); n != 1 {
				t.Errorf("the error names the address %d times, want once: %q", n, stderr)
			}
			if strings.Contains(stderr, "ops-pw-4711") {
				t.Errorf("the error shows the password: %q", stderr)
			}
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Fatal("Redis changed")
			}
		})
	}
}

// TestErrorsNameAddressOnce: withAddress adds the address to what came from
// Redis, once, and leaves the operator's errors and usage errors alone.
func TestErrorsNameAddressOnce(t *testing.T) {
	const addr = "10.0.0.1:6379"
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"from redis", errorString("move jobs: NOPERM no"), "redis at 10.0.0.1:6379: move jobs: NOPERM no"},
		{"already named", errorString("connect to redis at 10.0.0.1:6379: refused"), "connect to redis at 10.0.0.1:6379: refused"},
		{"remote end of a network error", errorString("requeue work:dead: read tcp 10.0.0.9:5000->10.0.0.1:6379: read: connection reset by peer"),
			"redis at 10.0.0.1:6379: requeue work:dead: read tcp 10.0.0.9:5000->10.0.0.1:6379: read: connection reset by peer"},
		{"not connected yet", nil, ""},
		{"operator said no", errAborted, "aborted: nothing changed"},
		{"usage", usageErrorf("bad"), "bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := withAddress(tc.err, addr)
			if (got == nil) != (tc.err == nil) || (got != nil && got.Error() != tc.want) {
				t.Fatalf("got %v, want %q", got, tc.want)
			}
		})
	}
	if got := withAddress(errorString("x"), ""); got.Error() != "x" {
		t.Errorf("without an address: %v", got)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
