package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

func TestExitCodeAddsHints(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
		code int
	}{
		{"noauth wrapped", fmt.Errorf("requeue: plan: %w", redis.Error("NOAUTH Authentication required.")), "set REDIS_PASSWORD or use --password-file", 1},
		{"noperm", fmt.Errorf("repair-locks: %w", redis.Error("NOPERM this user has no permissions to run the 'evalsha' command")), "lacks a permission", 1},
		{"plain error", fmt.Errorf("connect to redis at x:1: connection refused"), "connection refused", 1},
		{"usage", usageErrorf("unknown command %q", "nope"), "unknown command", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			code := exitCode(tt.err, &buf)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			first := strings.SplitN(buf.String(), "\n", 2)[0]
			if !strings.Contains(first, tt.want) {
				t.Errorf("first line %q lacks %q", first, tt.want)
			}
		})
	}
}

// TestExitCodeCleansTheMessage: an error that quotes a key or a name read
// from Redis or given on the command line prints it with every control,
// escape and bidi character made visible, on one line.
func TestExitCodeCleansTheMessage(t *testing.T) {
	name := "pool\x1b[31m\u009b\u202e\u2066\x7f\n\tx\xff"
	for _, err := range []error{
		fmt.Errorf("reap pool %s: not a known pool", name),
		usageErrorf("unknown pool %s", name),
	} {
		var buf bytes.Buffer
		exitCode(err, &buf)
		first := strings.SplitN(buf.String(), "\n", 2)[0]
		want := "workq-tui: " + textsafe.Clean(err.Error())
		if first != want {
			t.Errorf("first line %q, want %q", first, want)
		}
		for _, r := range buf.String() {
			if (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == 0x202e || r == 0x2066 || r == utf8.RuneError {
				t.Errorf("raw %U in %q", r, buf.String())
			}
		}
	}
}
