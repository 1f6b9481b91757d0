package redisq

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// FuzzParseHeartbeat feeds parseHeartbeat every kind of heartbeat hash
// (fields that are not numbers, empty or odd job_names, control characters)
// and checks what the snapshot relies on: it never panics; heartbeat_at is
// read exactly when it is a whole number and otherwise flagged malformed
// with a warning, so the pool is never classed dead from data that could
// not be read; a heartbeat_at in the future never makes a pool dead; job
// names are never empty. Its seeds run in make test.
func FuzzParseHeartbeat(f *testing.F) {
	f.Add("1764428400", "1764420000", "email,report", "w1,w2", "host-a", "4242", "10", true)
	f.Add("", "", "", "", "", "", "", true)
	f.Add("not a number", "12abc", ",,,", ",", "\x1b[31mred\x1b[0m", "-1", "1e3", true)
	f.Add(" 1764428400 ", "0x10", "a,,b,", "w", "h\r\nost", "999999999999999999999", "NaN", true)
	f.Add("9223372036854775807", "-9223372036854775808", "job:with:colons", "", "\u202ehost", "0", "0", true)
	f.Add("1764428400", "", "email", "", "", "", "", false)
	f.Fuzz(func(t *testing.T, at, started, jobNames, workerIDs, host, pid, conc string, withAt bool) {
		fields := []any{
			[]byte("started_at"), []byte(started), []byte("job_names"), []byte(jobNames),
			[]byte("worker_ids"), []byte(workerIDs), []byte("host"), []byte(host),
			[]byte("pid"), []byte(pid), []byte("concurrency"), []byte(conc),
		}
		if withAt {
			fields = append(fields, []byte("heartbeat_at"), []byte(at))
		}
		hb, warnings := parseHeartbeat(reply{v: fields})
		if hb == nil {
			t.Fatalf("a non-empty hash gave no heartbeat")
		}
		n, err := strconv.ParseInt(strings.TrimSpace(at), 10, 64)
		switch {
		case !withAt:
			if !hb.HeartbeatAtMissing || hb.HeartbeatAtMalformed {
				t.Fatalf("no heartbeat_at: missing %v malformed %v", hb.HeartbeatAtMissing, hb.HeartbeatAtMalformed)
			}
		case err == nil:
			if hb.HeartbeatAt != n || hb.HeartbeatAtMalformed || hb.HeartbeatAtMissing {
				t.Fatalf("heartbeat_at %q read as %d (malformed %v)", at, hb.HeartbeatAt, hb.HeartbeatAtMalformed)
			}
		default:
			if !hb.HeartbeatAtMalformed {
				t.Fatalf("heartbeat_at %q is not a number but not flagged", at)
			}
			if !strings.Contains(strings.Join(warnings, "\n"), "heartbeat_at") {
				t.Fatalf("heartbeat_at %q: no warning in %q", at, warnings)
			}
		}
		for _, j := range hb.JobNames {
			if j == "" {
				t.Fatalf("empty job name from %q", jobNames)
			}
		}
		if hb.Host != host {
			t.Fatalf("host %q read as %q", host, hb.Host)
		}
		now := time.Unix(1764428400, 0)
		st := model.Classify(hb, now, model.DefaultDeadAfter)
		if hb.HeartbeatAtMalformed && st == model.StatusDead {
			t.Fatalf("unreadable heartbeat_at %q classed dead", at)
		}
		if withAt && err == nil && n > now.Unix() && st == model.StatusDead {
			t.Fatalf("heartbeat_at %d is in the future (now %d) but the pool is classed dead", n, now.Unix())
		}
	})
}
