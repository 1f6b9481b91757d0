package model

import (
	"errors"
	"strings"
	"testing"
)

func TestReplaceField(t *testing.T) {
	for _, c := range []struct{ name, raw, key, value, want string }{
		{"in place", `{"name":"a","args":{"x":1},"t":5}`, "args", `{"y":2}`, `{"name":"a","args":{"y":2},"t":5}`},
		{"spaces kept", `{ "args" : null , "id":"i" }`, "args", `{}`, `{ "args" : {} , "id":"i" }`},
		{"absent: added", `{"name":"a","id":"i"}`, "args", `{"k":"v"}`, `{"name":"a","id":"i","args":{"k":"v"}}`},
		{"empty object", `{}`, "id", `"x"`, `{"id":"x"}`},
		{"id", `{"name":"a","id":"old","t":1}`, "id", `"new"`, `{"name":"a","id":"new","t":1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReplaceField([]byte(c.raw), c.key, []byte(c.value))
			if err != nil || string(got) != c.want {
				t.Errorf("got %s %v, want %s", got, err, c.want)
			}
		})
	}
	for _, raw := range []string{`[1]`, `{"args":1,"args":2}`, `{"args":`} {
		if _, err := ReplaceField([]byte(raw), "args", []byte(`{}`)); !errors.Is(err, ErrNotEditable) {
			t.Errorf("%s: %v, want ErrNotEditable", raw, err)
		}
	}
}

func TestCompactArgs(t *testing.T) {
	got, err := CompactArgs([]byte("{\n  \"n\": 12345678901234567890,\n  \"s\": \"a\\/b\",\n  \"l\": []\n}\n"))
	if err != nil || string(got) != `{"n":12345678901234567890,"s":"a\/b","l":[]}` {
		t.Errorf("compact: %s %v, want every value's text kept", got, err)
	}
	for _, c := range []struct{ text, want string }{
		{"{\n  \"a\": 1,\n  \"b\": x\n}", "line 3, column 8"},
		{"{\"a\":1", "not valid JSON"},
		{"[1,2]", "must be a JSON object: got an array"},
		{"null", "got null"},
		{"", "empty"},
		{"{} {}", "text after the object"},
	} {
		_, err := CompactArgs([]byte(c.text))
		var ae *ArgsError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.text, err, c.want)
		}
	}
}
