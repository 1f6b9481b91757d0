package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
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
