package model

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadAt is a dead-set member scored at sec.
func deadAt(sec int64) SetJob {
	return ParseSetJob(SetDead, []byte(`{"name":"x","id":"a","t":1,"args":{}}`), strconv.FormatInt(sec, 10))
}

// TestQueryTimeFarBounds: bounds past 2262-04-11T23:47:16Z and before
// 1677-09-21 (where nanoseconds since 1970 no longer fit an int64) are
// read in seconds: a bound in the far future selects nothing, one in the
// far past everything after it.
func TestQueryTimeFarBounds(t *testing.T) {
	jobs := []SetJob{deadAt(queryNow.Unix()), deadAt(0), deadAt(queryNow.Unix() - 86400*365*200)}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{`since:2262-04-11T23:47:16Z`, 0},
		{`since:2262-04-11T23:47:17Z`, 0},
		{`since:2262-04-11T23:47:17.5Z`, 0},
		{`since:2300-01-01T00:00:00Z`, 0},
		{`since:9999-12-31T23:59:59Z`, 0},
		{`until:1677-09-21T00:12:43Z`, 0},
		{`until:1600-01-01T00:00:00Z`, 0},
		{`until:0000-01-01T00:00:00Z`, 0},
		{`since:1600-01-01T00:00:00Z`, 3},
		{`since:0000-01-01T00:00:00Z until:9999-12-31T23:59:59Z`, 3},
		{`until:2300-01-01T00:00:00Z`, 3},
		{`since:1969-12-31T23:59:59.5Z`, 2},
		{`since:99999d`, 3},
		{`since:700000d until:73000d`, 1},
		{`since:2562047h`, 3},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q := parseQ(t, tc.query)
			if q.Since < MinQuerySecond || q.Since > MaxQuerySecond || q.Until < MinQuerySecond || q.Until > MaxQuerySecond {
				t.Fatalf("bounds %d..%d outside the range", q.Since, q.Until)
			}
			n := 0
			for _, sj := range jobs {
				if q.MatchSetJob(sj) {
					n++
				}
			}
			if n != tc.want {
				t.Fatalf("matched %d of %d, want %d", n, len(jobs), tc.want)
			}
		})
	}
}

// TestQueryTimeRefused: a time outside the range a bound may lie in, a
// negative age and an age too long to count are refused with one line.
func TestQueryTimeRefused(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{`since:9999-12-31T23:59:59-01:00`, `is out of range: a time bound lies from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z`},
		{`until:0000-01-01T00:00:00+01:00`, `is out of range`},
		{`since:-999999h`, `age "-999999h" is negative`},
		{`since:-1d`, `is negative`},
		{`since:-0s`, `is negative`},
		{`since:9999999h`, `age "9999999h" is out of range: at most 2562047h`},
		{`until:99999999999999999999s`, `is out of range`},
		{`since:1000000d`, `is out of range`},
		{`since:99999999999999999999d`, `is out of range: at most`},
	} {
		t.Run(tc.query, func(t *testing.T) {
			_, err := ParseQuery(tc.query, QueryClock{Now: queryNow})
			if err == nil || !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadQuery containing %q", err, tc.want)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestQueryRangeConstants(t *testing.T) {
	if lo, hi := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix(); lo != MinQuerySecond || hi != MaxQuerySecond {
		t.Fatalf("range %d..%d, want %d..%d", MinQuerySecond, MaxQuerySecond, lo, hi)
	}
}

// TestQueryScoreBeyondInt64: a score no int64 holds (+inf, 1e300) is
// compared as a number, as ZRANGEBYSCORE compares it.
func TestQueryScoreBeyondInt64(t *testing.T) {
	until := parseQ(t, `until:2026-12-01T03:00:00Z`)
	since := parseQ(t, `since:2026-12-01T03:00:00Z`)
	for _, score := range []string{"inf", "+inf", "1e300", "9223372036854775808"} {
		sj := ParseSetJob(SetDead, []byte(`{"name":"x","id":"a","t":1,"args":{}}`), score)
		if until.MatchSetJob(sj) || !since.MatchSetJob(sj) {
			t.Fatalf("score %s: until matched %v, since matched %v", score, until.MatchSetJob(sj), since.MatchSetJob(sj))
		}
	}
	for _, score := range []string{"-inf", "-1e300"} {
		sj := ParseSetJob(SetDead, []byte(`{"name":"x","id":"a","t":1,"args":{}}`), score)
		if !until.MatchSetJob(sj) || since.MatchSetJob(sj) {
			t.Fatalf("score %s: until matched %v, since matched %v", score, until.MatchSetJob(sj), since.MatchSetJob(sj))
		}
	}
	for _, tc := range []struct {
		score float64
		want  int64
	}{
		{math.Inf(1), math.MaxInt64}, {math.Inf(-1), math.MinInt64}, {1e300, math.MaxInt64}, {-1e300, math.MinInt64},
		{1.5, 1}, {-1.5, -2}, {1764558600, 1764558600}, {math.NaN(), 0},
	} {
		if got := ScoreSeconds(tc.score); got != tc.want {
			t.Errorf("ScoreSeconds(%v) = %d, want %d", tc.score, got, tc.want)
		}
	}
}

// FuzzQueryTimeBounds: a since/until pair written as RFC 3339 from any
// (seconds, nanoseconds), or an age of any count of any unit, either is
// refused with one line, or gives bounds in the range that select exactly
// the scores a comparison of the numbers written selects; never a wrap.
func FuzzQueryTimeBounds(f *testing.F) {
	f.Add(int64(9224318016), uint32(0), int64(9224318017), int64(1), uint8(0), int64(9224318017))
	f.Add(int64(-9224318016), uint32(1), int64(0), int64(99999), uint8(3), int64(0))
	f.Add(int64(253402300799), uint32(999999999), int64(253402300800), int64(2562048), uint8(2), int64(-1))
	f.Add(int64(-62167219200), uint32(0), int64(-62167219201), int64(-5), uint8(1), int64(math.MaxInt64))
	now := queryNow
	clock := QueryClock{Now: now, Zone: time.UTC}
	units := []struct {
		name string
		sec  int64
	}{{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}}
	f.Fuzz(func(t *testing.T, sinceSec int64, sinceNano uint32, untilSec int64, age int64, unit uint8, score int64) {
		sinceNano %= 1e9
		write := func(sec int64, nano uint32) (string, bool) {
			// time.Unix itself wraps near the ends of int64: keep to
			// a span far wider than the range and still exact.
			if sec < -1<<50 || sec > 1<<50 {
				return "", false
			}
			return time.Unix(sec, int64(nano)).UTC().Format(time.RFC3339Nano), true
		}
		inRange := func(sec int64, nano uint32) bool {
			return sec >= MinQuerySecond && (sec < MaxQuerySecond || sec == MaxQuerySecond && nano == 0)
		}
		sinceText, ok1 := write(sinceSec, sinceNano)
		untilText, ok2 := write(untilSec, 0)
		if ok1 && ok2 {
			text := "since:" + sinceText + " until:" + untilText
			q, err := ParseQuery(text, clock)
			// The bound as written: since matches a whole second s when
			// s > sinceSec, or s == sinceSec with no fraction.
			sinceFirst := sinceSec
			if sinceNano > 0 {
				sinceFirst++
			}
			switch {
			case !inRange(sinceSec, sinceNano) || !inRange(untilSec, 0):
				if err == nil {
					t.Fatalf("%q: out of the range, parsed to since %d until %d", text, q.Since, q.Until)
				}
			case untilSec < sinceFirst:
				if err == nil {
					t.Fatalf("%q: until before since, parsed", text)
				}
			case err != nil:
				t.Fatalf("%q: %v", text, err)
			default:
				want := score >= sinceFirst && score <= untilSec
				if got := q.MatchSetJob(deadAt(score)); got != want {
					t.Fatalf("%q: score %d matched %v, want %v", text, score, got, want)
				}
				lo, hi := q.ScoreRange(SetDead)
				if lo != strconv.FormatInt(sinceFirst, 10) || hi != strconv.FormatInt(untilSec, 10) {
					t.Fatalf("%q: score range %s..%s, want %d..%d", text, lo, hi, sinceFirst, untilSec)
				}
			}
			if err != nil && (!errors.Is(err, ErrBadQuery) || strings.ContainsAny(err.Error(), "\n\r")) {
				t.Fatalf("%q: error %q", text, err)
			}
		}

		u := units[int(unit)%len(units)]
		text := fmt.Sprintf("since:%d%s", age, u.name)
		q, err := ParseQuery(text, clock)
		back := new(big.Int).Mul(big.NewInt(age), big.NewInt(u.sec))
		at := new(big.Int).Sub(big.NewInt(now.Unix()), back)
		// Go durations end at 2562047h; days are counted in seconds.
		tooLong := u.name != "d" && new(big.Int).Mul(back, big.NewInt(1e9)).Cmp(big.NewInt(math.MaxInt64)) > 0
		if age < 0 || tooLong || at.Cmp(big.NewInt(MinQuerySecond)) < 0 || at.Cmp(big.NewInt(MaxQuerySecond)) > 0 {
			if err == nil {
				t.Fatalf("%q: parsed to since %d", text, q.Since)
			}
			if !errors.Is(err, ErrBadQuery) || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%q: error %q", text, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if q.Since != at.Int64() {
			t.Fatalf("%q: since %d, want %s", text, q.Since, at)
		}
		if got, want := q.MatchSetJob(deadAt(score)), score >= at.Int64(); got != want {
			t.Fatalf("%q: score %d matched %v, want %v", text, score, got, want)
		}
	})
}
