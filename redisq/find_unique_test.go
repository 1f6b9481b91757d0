package redisq

import "testing"

func TestParseUniqueKey(t *testing.T) {
	tests := []struct {
		rest, name, args string
		ok               bool
	}{
		{"mail:{\"a\":1}\n", "mail", `{"a":1}`, true},
		{"mail:send:{\"a\":{\"b\":2}}\n", "mail:send", `{"a":{"b":2}}`, true},
		{"mail:", "mail", "", true},
		{"mail:{}\n", "mail", "{}", true},
		{"mail", "", "", false},
	}
	for _, tt := range tests {
		name, args, ok := parseUniqueKey(tt.rest)
		if name != tt.name || string(args) != tt.args || ok != tt.ok {
			t.Errorf("%q: %q %q %v, want %q %q %v", tt.rest, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}
