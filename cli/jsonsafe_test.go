package cli

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

func TestJSONSafe(t *testing.T) {
	alphabet := []string{"a", " ", "\"", "\\", "<", "&", "\n", "\x1b", "\x7f", "é", "日本", "😀", "\u0085", "\u009b",
		"\u200e", "\u200f", "\u061c", "\u202a", "\u202e", "\u2066", "\u2069", "\u2028", "\ufffd"}
	var values []any
	for i, a := range alphabet {
		s := a + alphabet[(i*7+3)%len(alphabet)] + a
		values = append(values, s, map[string]any{s: []string{s, "x"}})
	}
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		safe := jsonSafe(b)
		if s := string(safe); textsafe.Clean(s) != s {
			t.Errorf("%q: %q is not safe to print", v, s)
		}
		var back any
		if err := json.Unmarshal(safe, &back); err != nil {
			t.Fatalf("%q: %v", safe, err)
		}
		var want any
		_ = json.Unmarshal(b, &want)
		if !reflect.DeepEqual(back, want) {
			t.Errorf("%q decodes to %q, want %q", safe, back, want)
		}
	}
	// A raw value passes through encoding/json with bytes that are not
	// UTF-8; they become U+FFFD.
	b, err := json.Marshal(json.RawMessage("{\"a\":\"x\xffy\u202e\"}"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(jsonSafe(b)); got != `{"a":"x\ufffdy\u202e"}` {
		t.Errorf("raw value: %q", got)
	}
	plain := []byte(`{"a":"日本","b":[1,2]}`)
	if got := jsonSafe(plain); &got[0] != &plain[0] {
		t.Error("safe JSON is copied")
	}
	if got := string(jsonSafe([]byte("\"\x7f\""))); got != `"\u007f"` {
		t.Errorf("DEL: %q", got)
	}
}
