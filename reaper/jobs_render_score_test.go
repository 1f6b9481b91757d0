package reaper

import (
	"testing"

	"github.com/workq-tui/workq-tui/model"
)

// TestScoreTime: a plan writes a score as a time only when it is a whole
// second RFC 3339 can write; any other score (a fraction, a year past
// 9999, one no int64 holds) as Redis wrote it, never a wrapped date.
func TestScoreTime(t *testing.T) {
	for _, tc := range []struct{ score, want string }{
		{"1764558600", "2025-12-01T03:10:00Z"},
		{"1764558600.5", "1764558600.5"},
		{"253402300799", "9999-12-31T23:59:59Z"},
		{"253402300800", "253402300800"},
		{"9223372036854775808", "9223372036854775808"},
		{"1e300", "1e300"},
		{"inf", "inf"},
		{"-inf", "-inf"},
	} {
		sj := model.ParseSetJob(model.SetDead, []byte(`{"name":"x","id":"a","t":1,"args":{}}`), tc.score)
		if got := scoreTime(sj); got != tc.want {
			t.Errorf("score %s: %q, want %q", tc.score, got, tc.want)
		}
	}
}
