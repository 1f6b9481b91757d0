package model

// This file owns the time bounds of a query (since:, until:): how a time is
// read, the range a bound may lie in, and how a bound and a set's score
// (a float64 of Unix seconds) are compared. Every conversion is in whole
// seconds: a time is never turned into nanoseconds since 1970, which an
// int64 holds only from 1677 to 2262 and which would wrap outside it.

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The range a time bound may lie in: the times RFC 3339 can write (a bound
// is printed back in plans and errors, and must read again as it was).
// Every second of it is a score a sorted set holds exactly (a float64
// holds every integer up to 2^53), so a bound in the range selects exactly
// the members scored within it; a time outside it is refused.
//
// MinQuerySecond and MaxQuerySecond are that range in Unix seconds:
// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
const (
	MinQuerySecond = -62167219200
	MaxQuerySecond = 253402300799
)

// maxQueryDays is the most days an age can go back and stay in the range.
const maxQueryDays = (MaxQuerySecond - MinQuerySecond) / 86400

// ageRE is the shape of a Go duration (2h, 1h30m, 1.5s): a text of that
// shape that time.ParseDuration refuses is too long for a time.Duration.
var ageRE = regexp.MustCompile(`^[+-]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

// parseQueryTime reads an RFC 3339 time, a clock time of today (15:04 or
// 15:04:05 in the clock's zone) or an age before now (90s, 90m, 2h, 3d, or
// any Go duration such as 1h30m). A time outside the range a bound may lie
// in is refused.
func parseQueryTime(s string, clock QueryClock) (time.Time, error) {
	at, err := readQueryTime(s, clock)
	if err != nil {
		return time.Time{}, err
	}
	if sec := at.Unix(); sec < MinQuerySecond || sec > MaxQuerySecond || sec == MaxQuerySecond && at.Nanosecond() > 0 {
		return time.Time{}, fmt.Errorf("time %q is out of range: a time bound lies from %s to %s", s,
			time.Unix(MinQuerySecond, 0).UTC().Format(time.RFC3339), time.Unix(MaxQuerySecond, 0).UTC().Format(time.RFC3339))
	}
	return at, nil
}

func readQueryTime(s string, clock QueryClock) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"15:04", "15:04:05"} {
		if c, err := time.ParseInLocation(layout, s, clock.Zone); err == nil && len(s) == len(layout) {
			now := clock.Now.In(clock.Zone)
			return time.Date(now.Year(), now.Month(), now.Day(), c.Hour(), c.Minute(), c.Second(), 0, clock.Zone), nil
		}
	}
	if strings.HasPrefix(s, "-") && (ageRE.MatchString(s) || strings.HasSuffix(s, "d")) {
		return time.Time{}, fmt.Errorf("age %q is negative: an age counts back from now; write a later time in RFC 3339 (2026-12-01T03:10:00Z)", s)
	}
	if digits, ok := strings.CutSuffix(s, "d"); ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
		days, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || days > maxQueryDays {
			return time.Time{}, fmt.Errorf("age %q is out of range: at most %dd", s, maxQueryDays)
		}
		// In seconds, not through time.Duration (at most 106751 days).
		return time.Unix(clock.Now.Unix()-days*86400, int64(clock.Now.Nanosecond())).In(clock.Now.Location()), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return clock.Now.Add(-d), nil
	}
	if ageRE.MatchString(s) {
		return time.Time{}, fmt.Errorf("age %q is out of range: at most %.0fh; write days (3650d) or a time in RFC 3339 for older times", s, math.Floor(time.Duration(math.MaxInt64).Hours()))
	}
	return time.Time{}, fmt.Errorf("time %q: want RFC 3339 (2026-12-01T03:10:00Z), a clock time of today (03:10) or an age (90m, 2h, 3d)", s)
}

// sinceSeconds is the first whole second at or after at: the set's times
// are whole seconds, so a bound within a second starts at the next one.
func sinceSeconds(at time.Time) int64 {
	s := at.Unix()
	if at.Nanosecond() > 0 {
		s++
	}
	return s
}

// MatchScore reports whether a set's score (Unix seconds) is within since
// and until, compared as ZRANGEBYSCORE compares them: a bound in the range
// is exact as a float64, so no conversion can wrap or round.
func (q *Query) MatchScore(score float64) bool {
	if q == nil {
		return true
	}
	return (!q.HasSince || score >= float64(q.Since)) && (!q.HasUntil || score <= float64(q.Until))
}

// ScoreSeconds is a score as whole Unix seconds, rounded down and held at
// the ends of int64 for a score beyond them (+inf, 1e300), where a plain
// conversion is undefined.
func ScoreSeconds(score float64) int64 {
	switch {
	case math.IsNaN(score):
		return 0
	case score >= math.MaxInt64:
		return math.MaxInt64
	case score <= math.MinInt64:
		return math.MinInt64
	}
	return int64(math.Floor(score))
}
