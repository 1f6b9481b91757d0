package model

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzParseQuery: any text either parses or fails with one line wrapping
// ErrBadQuery, never panics; a parsed query matches without panicking, and
// its text parses again to the same query; its time bounds lie in the
// range a bound may lie in.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		``, `job:send_*`, `err:"gateway timeout" since:03:10 until:03:40`, `err~^x$`, `id:abc`,
		`args:ord_1 args.user.id:42`, `fails>=3 fails<=9 fails:4`, `since:2h until:90m`,
		`erorr:x`, `since:2026-12-01T03:10:00Z`, `since:2262-04-11T23:47:17Z`, `until:-999999h`, `since:99999d`, `err:"a\"b\\"`, `args.a.0.b:"x y"`,
	} {
		f.Add(s)
	}
	clock := QueryClock{Now: time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC), Zone: time.UTC}
	jobs := []SetJob{
		ParseSetJob(SetDead, []byte(`{"name":"send_x","id":"abc","t":1,"args":{"user":{"id":42},"a":[{"b":"x y"}]},"fails":4,"err":"gateway timeout","failed_at":1764558600}`), "1764558600"),
		ParseSetJob(SetRetry, []byte(`[1,2]`), "5"),
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s, clock)
		if err != nil {
			if !errors.Is(err, ErrBadQuery) {
				t.Fatalf("error %v does not wrap ErrBadQuery", err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if q.HasSince && (q.Since < MinQuerySecond || q.Since > MaxQuerySecond) || q.HasUntil && (q.Until < MinQuerySecond || q.Until > MaxQuerySecond) {
			t.Fatalf("%q: bounds %d..%d outside the range", s, q.Since, q.Until)
		}
		for _, sj := range jobs {
			q.MatchSetJob(sj)
			q.MatchQueueJob(sj.Job)
		}
		q.ScoreRange(SetDead)
		if _, err := ParseQuery(q.Text, clock); err != nil {
			t.Fatalf("%q parsed once, then failed: %v", s, err)
		}
	})
}
