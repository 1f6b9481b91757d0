package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
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
		out := append(append(append([]byte{}, e.Before...), "42"...), e.After...)
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("edit of %q gave invalid JSON %q: %v", raw, out, err)
		}
		want := map[string]json.RawMessage{}
		for k, v := range old {
			if dropFailure && failureField(k) {
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
			got := map[string]string{"id": j.ID, "name": j.Name, "err": j.LastErr}[k]
			// Invalid UTF-8 is kept as stored, where encoding/json writes U+FFFD.
			if ok && got != s && utf8.Valid(raw) {
				t.Fatalf("%s of %q: %q, encoding/json %q", k, raw, got, s)
			}
		}
	})
}

// FuzzParseJobFields: the reader takes as a job exactly what encoding/json
// reads as a JSON object, explains the rest as encoding/json does, and
// reads each field as encoding/json does with exact keys, the last one
// counting (text that is not UTF-8 is kept as stored where encoding/json
// writes U+FFFD).
func FuzzParseJobFields(f *testing.F) {
	for _, s := range []string{
		`{"name":"mail","id":"a1","t":1700000000,"args":{"n":12345678901234567,"l":[]},"fails":3,"err":"boom","failed_at":1}`,
		`{"fails":2.5,"err":"e \u003c\/ \ud83d\ude00 \ud800x","args":null,"t":-7e2,"id":"b","name":"x\/y","unique":true,"unique_key":"k"}`,
		`{"id":"x","t":"late","unique":"yes","unique_key":5,"fails":null,"err":null,"failed_at":1e400}`,
		"{ \"id\" : \"c\" ,\n \"err\":\"\xff\" }", `{}`, `{"\u0074":1}`, `[1]`, `"x"`, `null`, `{"t":1,"t":2}`, `{"a":1,}`, `{"t":01}`,
		`{"err":"\n` + strings.Repeat("\xff", 40) + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		j, problem := ParseJobFields(raw)
		// Read together, members read as they do alone.
		pairs := [][]byte{raw, []byte("5.5"), []byte(benchDeadJob), []byte("x"), raw, []byte("-inf")}
		for i, sj := range ParseSetJobs(SetRetry, pairs) {
			if alone := ParseSetJob(SetRetry, pairs[2*i], string(pairs[2*i+1])); !sameSetJob(sj, alone) {
				t.Fatalf("%q read together: %+v %+v, alone %+v %+v", pairs[2*i], sj, sj.Job, alone, alone.Job)
			}
			// Read before its score is known, then given it.
			later := ParseMember(SetRetry, pairs[2*i])
			later.SetScore(string(pairs[2*i+1]))
			if !sameSetJob(later, sj) {
				t.Fatalf("%q scored later: %+v %+v, at once %+v %+v", pairs[2*i], later, later.Job, sj, sj.Job)
			}
		}
		var obj map[string]json.RawMessage
		err := json.Unmarshal(raw, &obj)
		switch {
		case err != nil && json.Valid(raw):
			if j != nil || problem != "not a JSON object" {
				t.Fatalf("%q: a JSON text that is not an object: job %v, problem %q", raw, j != nil, problem)
			}
			return
		case err != nil:
			if j != nil || problem != "not a JSON object: "+err.Error() {
				t.Fatalf("%q: not JSON (%v): job %v, problem %q", raw, err, j != nil, problem)
			}
			return
		case obj == nil:
			if j != nil || problem != "not a JSON object" {
				t.Fatalf("%q: null: job %v, problem %q", raw, j != nil, problem)
			}
			return
		case j == nil:
			t.Fatalf("%q: an object not read: %s", raw, problem)
		}
		bad := map[string]bool{}
		if rest, ok := strings.CutPrefix(problem, "field of an unexpected type: "); ok {
			for _, k := range strings.Split(rest, ", ") {
				bad[k] = true
			}
		} else if problem != "" {
			t.Fatalf("%q: problem %q", raw, problem)
		}
		for k, got := range map[string]string{"id": j.ID, "name": j.Name, "err": j.LastErr, "unique_key": j.UniqueKey} {
			v, ok := obj[k]
			switch {
			case !ok || string(v) == "null":
			case v[0] != '"':
				if !bad[k] {
					t.Fatalf("%q: %s of another type not named in %q", raw, k, problem)
				}
			case !utf8.Valid(v) && !bytes.Contains(v, []byte(`\`)):
				if got != string(v[1:len(v)-1]) {
					t.Fatalf("%q: %s %q, stored %q", raw, k, got, v)
				}
			default:
				var want string
				_ = json.Unmarshal(v, &want)
				if got != want {
					t.Fatalf("%q: %s %q, encoding/json %q", raw, k, got, want)
				}
			}
		}
		for k, got := range map[string]int64{"t": j.EnqueuedAt, "fails": j.Fails, "failed_at": j.FailedAt} {
			v, ok := obj[k]
			if !ok || string(v) == "null" {
				continue
			}
			var n json.Number
			want, err := int64(0), json.Unmarshal(v, &n)
			if v[0] == '"' {
				err = errors.New("a string") // json.Number also takes a quoted number
			}
			if err == nil {
				if want, err = n.Int64(); err != nil {
					var f float64
					if f, err = n.Float64(); err == nil {
						want = int64(f)
					}
				}
			}
			if (err != nil && !bad[k]) || (err == nil && got != want) {
				t.Fatalf("%q: %s %d (bad %v), encoding/json %d (%v)", raw, k, got, bad[k], want, err)
			}
		}
		if v, ok := obj["unique"]; ok && string(v) != "null" {
			if b := string(v) == "true"; (!b && string(v) != "false" && !bad["unique"]) || ((b || string(v) == "false") && j.Unique != b) {
				t.Fatalf("%q: unique %v (bad %v)", raw, j.Unique, bad["unique"])
			}
		}
		if v, ok := obj["args"]; string(j.Args) != string(v) || (j.Args == nil) == ok {
			t.Fatalf("%q: args %q, stored %q", raw, j.Args, v)
		}
	})
}

func sameSetJob(a, b SetJob) bool {
	if a.Set != b.Set || a.ScoreText != b.ScoreText || a.Problem != b.Problem || string(a.Raw) != string(b.Raw) ||
		(a.Score != b.Score && !(a.Score != a.Score && b.Score != b.Score)) || (a.Job == nil) != (b.Job == nil) {
		return false
	}
	return a.Job == nil || reflect.DeepEqual(*a.Job, *b.Job)
}

// Nesting deeper than encoding/json's limit is not valid JSON to the
// reader either, and is explained as encoding/json explains it.
func TestParseJobFieldsNestingLimit(t *testing.T) {
	for _, n := range []int{9999, 10000, 10001} {
		for _, raw := range []string{
			strings.Repeat("[", n) + strings.Repeat("]", n),
			`{"args":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`,
			`{"args":` + strings.Repeat(`{"b":`, n-1) + "1" + strings.Repeat("}", n-1) + `}`,
		} {
			j, problem := ParseJobFields([]byte(raw))
			var v map[string]json.RawMessage
			err := json.Unmarshal([]byte(raw), &v)
			want := ""
			switch {
			case err != nil && json.Valid([]byte(raw)):
				want = "not a JSON object"
			case err != nil:
				want = "not a JSON object: " + err.Error()
			}
			if problem != want || (j == nil) != (err != nil) {
				t.Errorf("depth %d %.12q: job %v, problem %q, want %q", n, raw, j != nil, problem, want)
			}
		}
	}
}

// A string is read as encoding/json reads it whatever byte stands at
// whatever place in the eight-byte words the scanner tests at once.
func TestParseJobFieldsStringBytes(t *testing.T) {
	for _, c := range []byte{0x00, 0x1f, '"', '\\', 0x20, '!', 0x7f, 0x80, 0xff} {
		for before := 0; before < 20; before++ {
			for _, after := range []int{0, 3, 9} {
				text := strings.Repeat("a", before) + string([]byte{c}) + strings.Repeat("b", after)
				raw := []byte(`{"id":"` + text + `","name":"n"}`)
				j, problem := ParseJobFields(raw)
				var v struct{ ID, Name string }
				err := json.Unmarshal(raw, &v)
				if (j == nil) != (err != nil) {
					t.Fatalf("%q: job %v (%s), encoding/json %v", raw, j != nil, problem, err)
				}
				if j != nil && (j.Name != "n" || (utf8.ValidString(text) && j.ID != v.ID) || (!utf8.ValidString(text) && j.ID != text)) {
					t.Fatalf("%q: id %q name %q, encoding/json %q", raw, j.ID, j.Name, v.ID)
				}
			}
		}
	}
}
