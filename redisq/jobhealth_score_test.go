package redisq

import (
	"strconv"
	"testing"
)

// scoreSeconds reads every score as strconv.ParseFloat and a conversion
// to int64 do, its fast path for whole seconds included.
func TestScoreSecondsMatchesParseFloat(t *testing.T) {
	for _, s := range []string{
		"0", "1", "-1", "1765000000", "-1765000000", "1765000000.75", "-0.5", "-0",
		"007", "999999999999999", "9999999999999999", "1e9", "1.5e3", "inf", "-inf",
		"", "-", "12a", " 1", "0x10", "9223372036854775807",
	} {
		got, ok := scoreSeconds([]byte(s))
		f, err := strconv.ParseFloat(s, 64)
		if ok != (err == nil) || (ok && got != int64(f)) {
			t.Errorf("%q: %d %v, ParseFloat %v %v", s, got, ok, f, err)
		}
	}
}

func FuzzScoreSeconds(f *testing.F) {
	for _, s := range []string{"1765000000", "-3", "1.5", "inf", "01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := scoreSeconds([]byte(s))
		fl, err := strconv.ParseFloat(s, 64)
		if ok != (err == nil) || (ok && got != int64(fl)) {
			t.Fatalf("%q: %d %v, ParseFloat %v %v", s, got, ok, fl, err)
		}
	})
}
