package redisq

import (
	"strconv"
	"strings"
	"testing"
)

// parseIntBytes must agree with what it replaced,
// strconv.ParseInt(strings.TrimSpace(s), 10, 64), on every input.
func TestParseIntBytesAgreesWithStrconv(t *testing.T) {
	inputs := []string{"", "0", "-0", "7", "007", "-42", "+5", " 12 ", "\t3\n", "1e3", "3.0", "-", "--1", "x",
		"999999999999999999", "-999999999999999999", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "12345678901234567890", "\u00a012", "1 2"}
	for _, in := range inputs {
		want, wantErr := strconv.ParseInt(strings.TrimSpace(in), 10, 64)
		got, gotErr := parseIntBytes([]byte(in))
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("parseIntBytes(%q) = %d, %v; strconv says %d, %v", in, got, gotErr, want, wantErr)
		}
	}
}

func FuzzParseIntBytes(f *testing.F) {
	f.Add("12")
	f.Add("-3 ")
	f.Fuzz(func(t *testing.T, in string) {
		want, wantErr := strconv.ParseInt(strings.TrimSpace(in), 10, 64)
		got, gotErr := parseIntBytes([]byte(in))
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("parseIntBytes(%q) = %d, %v; strconv says %d, %v", in, got, gotErr, want, wantErr)
		}
	})
}
