package cli

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// The longest window the flags allow (a Go duration's 292 years, back
// before 1970) in the longest buckets counts every death, each once, and
// a --where bound past 2262 counts none; no bound wraps.
func TestTimelineFarWindow(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	now := redistest.Time(t, c).Unix()
	args := []any{k.Dead()}
	for i := 0; i < 50; i++ {
		at := now - int64(i)*86400*30
		args = append(args, at, fmt.Sprintf(`{"name":"mail","id":"d%d","t":1,"args":{},"fails":4,"err":"x","failed_at":%d}`, i, at))
	}
	redistest.Do(t, c, "ZADD", args...)
	deaths := func(extra ...string) int {
		t.Helper()
		out, stderr, code := runCLI(t, input{}, append([]string{"--redis=" + srv.Addr(), "timeline", "--json"}, extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		var tl timelineJSON
		if err := json.Unmarshal([]byte(out), &tl); err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
		n := 0
		for i, b := range tl.Buckets {
			if b.Start%tl.BucketSeconds != 0 || i == 0 && b.Start > tl.From {
				t.Fatalf("%v: bucket %d starts at %d (window from %d, buckets of %ds)", extra, i, b.Start, tl.From, tl.BucketSeconds)
			}
			n += b.Deaths
		}
		return n
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--since", "2562047h", "--bucket", "2562047h"}, 50},
		{[]string{"--since", "2562047h", "--bucket", "876000h"}, 50},
		{[]string{"--since", "2562047h", "--bucket", "876000h", "--where", "since:2262-04-11T23:47:17Z"}, 0},
		{[]string{"--since", "2562047h", "--bucket", "876000h", "--where", "until:1600-01-01T00:00:00Z"}, 0},
	} {
		if got := deaths(tc.args...); got != tc.want {
			t.Errorf("%v: %d deaths, want %d", tc.args, got, tc.want)
		}
	}
}
