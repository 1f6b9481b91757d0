package model

import (
	"testing"
)

// failureTextSeeds are jobs as gocraft/work writes them and the odd ones a
// set may hold: escapes in either text, fields repeated, null or of
// another type, text that is not an object or not JSON.
var failureTextSeeds = []string{
	`{"name":"charge_card","id":"a1","t":1700000000,"args":{"n":1},"fails":4,"err":"upstream 504: timeout after 30s","failed_at":1700000100}`,
	`{"name":"a\/b","err":"line\nbreak \u00e9 \ud83d\ude00","failed_at":1.5}`,
	`{"name":"plain","err":"esc\"aped"}`,
	`{"name":"esc\tname","err":"plain"}`,
	`{"name":"x","name":"y","err":"e1","err":null}`,
	`{"name":7,"err":["e"],"failed_at":"soon"}`,
	`{"name":null,"err":"e"}`,
	`{"err":"\ud800 lone","name":"\u0000"}`,
	"{\"name\":\"bad \xff utf8\",\"err\":\"\\\"q\xfe\"}",
	`{"args":{"name":"inner","err":"inner"},"t":1}`,
	`{}`, `[1]`, `"x"`, `{"name":"cut"`, ``, `{"name":"a",}`,
	// gocraft/work's layout (failureTextLayout) and texts that leave it
	// near its start, middle or end.
	`{"name":"charge_card","id":"a1","t":1700000000,"args":{"n":1}}`,
	`{"name":"","id":"","t":0,"args":null,"err":"","failed_at":-5}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":1,"failed_at":1700000100}`,
	`{"name":"x","id":"a1","t":1,"args":[],"err":"e"}`,
	`{"name":"x","id":"a1","t":1.5e3,"args":{"a":[1,{"b":"\u00e9"}]},"fails":4,"err":"e","failed_at":1.9}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"err":"e","failed_at":1e400}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"err":"e","failed_at":12345678901234567890}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"err":"e","failed_at":"soon"}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"err":"e","failed_at":01}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"err":"e","failed_at":1} `,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"err":"e","failed_at":1}}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"err":"e","failed_at":1,"err":"f"}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"err":"e","failed_at":1`,
	`{"name":"x","id":"a1","t":1,"args":{},"unique":true,"err":"e","failed_at":1}`,
	`{"name":"x","id":"a1","t":1,"args":{,"err":"e","failed_at":1}`,
	`{"name":"x","id":"a1","t":-,"args":{},"err":"e","failed_at":1}`,
	`{"name":"x","id":"a1","t":1,"args":{},"fails":,"err":"e","failed_at":1}`,
	`{"name":"x\"y","id":"a1","t":1,"args":{},"err":"e","failed_at":1}`,
	`{"name":"x","id":"a\u0031","t":1,"args":{},"err":"e","failed_at":1}`,
	`{"name":"x","id":"a1","t":1,"args":{},"err":"line\nbreak","failed_at":1}`,
	"{\"name\":\"x\ty\",\"id\":\"a1\",\"t\":1,\"args\":{},\"err\":\"e\",\"failed_at\":1}",
	"{\"name\":\"x\",\"id\":\"a1\",\"t\":1,\"args\":{},\"err\":\"bad \xff\",\"failed_at\":1}",
}

// FailureText reads the same name, error and failed_at as ParseJobFields,
// and rejects exactly what it rejects, whatever the bytes; a buffer kept
// from call to call changes nothing.
func FuzzFailureText(f *testing.F) {
	for _, s := range failureTextSeeds {
		f.Add([]byte(s))
	}
	var buf []byte
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFailureText(t, raw, &buf)
	})
}

func TestFailureTextMatchesParseJobFields(t *testing.T) {
	var buf []byte
	for _, s := range failureTextSeeds {
		checkFailureText(t, []byte(s), &buf)
	}
}

func checkFailureText(t *testing.T, raw []byte, buf *[]byte) {
	t.Helper()
	kept := string(raw)
	name, errText, at, next, ok := FailureText(raw, *buf)
	*buf = next
	j, _ := ParseJobFields(raw)
	if ok != (j != nil) {
		t.Fatalf("%q: FailureText ok %v, ParseJobFields %v", raw, ok, j)
	}
	if string(raw) != kept {
		t.Fatalf("%q: FailureText changed its input", kept)
	}
	if !ok {
		return
	}
	if string(name) != j.Name || string(errText) != j.LastErr || at != j.FailedAt {
		t.Fatalf("%q: FailureText %q %q %d, ParseJobFields %q %q %d", raw, name, errText, at, j.Name, j.LastErr, j.FailedAt)
	}
}

// A job without escapes is read without allocating.
func TestFailureTextAllocations(t *testing.T) {
	raw := []byte(failureTextSeeds[0])
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		_, _, _, buf, _ = FailureText(raw, buf)
	}); n != 0 {
		t.Errorf("%v allocations a job, want 0", n)
	}
}

// The jobs gocraft/work's worker writes take the short way
// (failureTextLayout), which reads what the long way reads; any other text
// is left to the long way.
func TestFailureTextLayout(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		handled bool
	}{
		{failureTextSeeds[0], true},
		{`{"name":"x","id":"a1","t":1,"args":{"a":[1,{"b":"\u00e9"}]}}`, true},
		{`{"name":"x","id":"a1","t":1,"args":{},"fails":4,"failed_at":1e400}`, true},
		{`{"name":"x","id":"a1","t":1,"args":{},"err":"e","failed_at":1} `, false},
		{`{"name":"x","id":"a1","t":1,"args":{},"unique":true,"err":"e"}`, false},
		{`{"name":"x","id":"a1","t":1,"args":{},"err":"line\nbreak"}`, false},
		{`{"id":"a1","name":"x","t":1,"args":{}}`, false},
		{`{"name":"x","id":"a1","t":1,"args":{}`, false},
	} {
		name, errText, at, handled := failureTextLayout([]byte(tc.raw))
		if handled != tc.handled {
			t.Errorf("%s: handled %v, want %v", tc.raw, handled, tc.handled)
			continue
		}
		if !handled {
			continue
		}
		j, _ := ParseJobFields([]byte(tc.raw))
		if j == nil || string(name) != j.Name || string(errText) != j.LastErr || at != j.FailedAt {
			t.Errorf("%s: %q %q %d, ParseJobFields %+v", tc.raw, name, errText, at, j)
		}
	}
}
