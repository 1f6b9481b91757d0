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
