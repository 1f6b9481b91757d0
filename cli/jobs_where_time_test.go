package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// Time bounds far from now are read in whole seconds against 500 dead
// jobs: a bound past 2262-04-11T23:47:16Z (where nanoseconds since 1970
// leave an int64) selects nothing and a bulk delete under it deletes
// nothing; a bound before 1678 selects them all; a time no bound can hold
// (past 9999-12-31T23:59:59Z, or a negative or overlong age) is refused
// with one line, exit 2, Redis untouched.
func TestJobsWhereFarTimes(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	args := []any{"work:dead"}
	for i := 0; i < 500; i++ {
		at := now - int64(i)*60
		args = append(args, at, fmt.Sprintf(`{"name":"mail","id":"m%03d","t":%d,"args":{},"fails":4,"err":"smtp: timeout","failed_at":%d}`, i, at-5, at))
	}
	redistest.Do(t, c, "ZADD", args...)
	addr := "--redis=" + srv.Addr()
	members := func(where string) int {
		t.Helper()
		out, stderr, code := runCLI(t, input{}, addr, "--read-only", "jobs", "dead", "--summary", "--json", "--where", where)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", where, code, stderr)
		}
		var s jobsSummaryJSON
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%s: %v: %s", where, err, out)
		}
		return int(s.Members)
	}
	for _, tc := range []struct {
		where string
		want  int
	}{
		{"since:2262-04-11T23:47:16Z", 0},
		{"since:2262-04-11T23:47:17Z", 0},
		{"since:2300-01-01T00:00:00Z", 0},
		{"until:1677-09-21T00:12:43Z", 0},
		{"since:1600-01-01T00:00:00Z", 500},
		{"since:0000-01-01T00:00:00Z until:9999-12-31T23:59:59Z", 500},
		{"since:99999d", 500},
	} {
		if got := members(tc.where); got != tc.want {
			t.Errorf("--where %s: %d members, want %d", tc.where, got, tc.want)
		}
	}

	before := redistest.Dump(t, c, "*")
	log := t.TempDir() + "/a.log"
	for _, where := range []string{"since:2262-04-11T23:47:17Z", "since:2300-01-01T00:00:00Z"} {
		out, stderr, code := runCLI(t, input{}, addr, "jobs", "dead", "delete", "--all", "--yes", "--audit-log", log, "--where", where)
		if code != 0 || !strings.Contains(out, "Nothing to do.") || strings.Contains(out, "deleted") {
			t.Fatalf("delete --where %s: exit %d, stdout %q, stderr %q", where, code, out, stderr)
		}
	}
	for _, tc := range []struct{ where, want string }{
		{"since:9999-12-31T23:59:59-01:00", `is out of range: a time bound lies from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z`},
		{"since:-999999h", `age "-999999h" is negative`},
		{"until:-1d", `is negative`},
		{"since:9999999h", `is out of range: at most 2562047h`},
		{"since:99999999999999999999d", `is out of range`},
	} {
		out, stderr, code := runCLI(t, input{}, addr, "jobs", "dead", "delete", "--all", "--yes", "--audit-log", log, "--where", tc.where)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, tc.want) || errorLines(stderr) != 1 {
			t.Fatalf("delete --where %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.where, code, out, stderr, tc.want)
		}
	}
	if n, err := redis.Int(c.Do("ZCARD", "work:dead")); err != nil || n != 500 {
		t.Fatalf("dead set holds %d (%v), want 500", n, err)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Fatal("a delete that matched nothing changed Redis")
	}
}
