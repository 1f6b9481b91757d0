package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzEditForRequeue: whatever the stored bytes, an edit that succeeds
// gives valid JSON that decodes to the stored object with t = now and, for
// a dead job, without fails, err and failed_at; and ParseJobFields reads the
// same id, name and err as encoding/json.
func FuzzEditForRequeue(f *testing.F) {
	for _, s := range []string{
		`{"name":"mail","id":"a1","t":1700000000,"args":{"n":12345678901234567,"l":[]},"fails":3,"err":"boom","failed_at":1}`,
		`{"fails":2,"err":"e","args":{"z":1,"a":2},"t":7,"id":"b","name":"x\/y","failed_at":1}`,
		"{ \"id\" : \"c\" ,\n \"err\":\"e\" }", `{}`, `{"\u0074":1}`, `{"args":{"s":"}{\"t\":1"},"t":3}`, `[1]`, `"x"`, `{"a":"\ud800"}`,
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, dropFailure bool) {
		var old map[string]json.RawMessage
		oldErr := json.Unmarshal(raw, &old)
		e, err := EditForRequeue(raw, dropFailure)
		if err != nil {
			return
		}
		if oldErr != nil || old == nil {
			t.Fatalf("edited %q, which encoding/json does not read as an object", raw)
		}
		out := e.With(42)
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("edit of %q gave invalid JSON %q: %v", raw, out, err)
		}
		want := map[string]json.RawMessage{}
		for k, v := range old {
			if dropFailure && failureFields[k] {
				continue
			}
			want[k] = v
		}
		want["t"] = json.RawMessage("42")
		norm := func(m map[string]json.RawMessage) map[string]string {
			out := map[string]string{}
			for k, v := range m {
				var b bytes.Buffer
				_ = json.Compact(&b, v)
				out[k] = b.String()
			}
			return out
		}
		if !reflect.DeepEqual(norm(got), norm(want)) {
			t.Fatalf("edit of %q:\n got %v\nwant %v", raw, norm(got), norm(want))
		}
		// Keys match exactly (encoding/json's struct decoding would also
		// take "ID" for "id"; Lua's cjson, the other reader, would not).
		var std map[string]any
		_ = json.Unmarshal(raw, &std)
		j, _ := ParseJobFields(raw)
		for _, k := range []string{"id", "name", "err"} {
			s, ok := std[k].(string)
			got := map[string]string{"id": j.ID, "name": j.Name, "err": j.Err}[k]
			// Invalid UTF-8 is kept as stored, where encoding/json writes U+FFFD.
			if ok && got != s && utf8.Valid(raw) {
				t.Fatalf("%s of %q: %q, encoding/json %q", k, raw, got, s)
			}
		}
	})
}
