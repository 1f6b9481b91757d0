package model

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReaderEquivalence: the one-pass reader and the one before it read
// every input alike: the same fields, the same problem, the same edit.
func FuzzReaderEquivalence(f *testing.F) {
	for _, s := range []string{
		`{"name":"send_welcome_mail","id":"5f1b2c3d4e5f6a7b8c9d0e1f","t":1700000000,"args":{"account_id":100042,"email":"user42@example.com","template":"welcome_v2"},"fails":4,"err":"dial tcp 10.0.42.42:25: i/o timeout","failed_at":1700000600}`,
		`{"fails":2,"err":"e \u003c\/ \ud83d\ude00 \ud800x","args":{"z":1,"a":[]},"t":7.9,"id":"b","name":"x\/y","failed_at":-1e3}`,
		`{"id":"x","t":"late","unique":"yes","unique_key":5,"fails":null,"err":null}`,
		"{ \"id\" : \"c\" ,\n \"err\":\"e\" }", `{}`, `{"\u0074":1}`, `[1]`, `"x"`, `null`, ` {"a":{"b":[1,2,{"c":null}]}} `,
		`{"t":1,"t":2}`, `{"id":"a","id":null}`, `{"t":1e400}`, `{"t":01}`, `{"a":1,}`, `{"a" 1}`, "{\"a\":\"\x01\"}", "{\"id\":\"\xff\"}",
		`{"id":"\u12"}`, `{"id":"\x"}`, `nul`, `{"a":tru}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":1e+5}`, ``, `   `,
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, dropFailure bool) {
		oldJ, oldProblem := oldParseJobFields(raw)
		j, problem := ParseJobFields(raw)
		if problem != oldProblem || (j == nil) != (oldJ == nil) {
			t.Fatalf("%q: problem %q (job %v), was %q (job %v)", raw, problem, j != nil, oldProblem, oldJ != nil)
		}
		if j != nil {
			was := JobFields{ID: oldJ.ID, Name: oldJ.Name, EnqueuedAt: oldJ.T, Args: oldJ.Args, Unique: oldJ.Unique,
				UniqueKey: oldJ.UniqueKey, Fails: oldJ.Fails, LastErr: oldJ.Err, FailedAt: oldJ.FailedAt}
			if !sameFields(*j, was) {
				t.Fatalf("%q:\n got %+v\n was %+v", raw, *j, was)
			}
		}

		e, err := EditForRequeue(raw, dropFailure)
		oldE, oldErr := oldEditForRequeue(raw, dropFailure)
		if (err == nil) != (oldErr == nil) {
			t.Fatalf("%q: edit error %v, was %v", raw, err, oldErr)
		}
		if err == nil {
			r1, l1 := e.Recipe()
			r2, l2 := oldE.Recipe()
			if string(e.With(42)) != string(oldE.With(42)) || r1 != r2 || l1 != l2 {
				t.Fatalf("%q: edit %q %q %q, was %q %q %q", raw, e.With(42), r1, l1, oldE.With(42), r2, l2)
			}
		}

		// The list reader decoded with encoding/json, which matches keys
		// without regard to case, lets a later field of another type blank
		// an earlier one, and writes invalid UTF-8 as U+FFFD: it is
		// compared on the inputs where those do not apply.
		if !utf8.Valid(raw) || (j != nil && !plainKeys(raw)) {
			return
		}
		lj, oj := ParseJob(string(raw)), oldParseJob(string(raw))
		if (lj.ParseErr == nil) != (oj.ParseErr == nil) {
			t.Fatalf("%q: list job error %v, was %v", raw, lj.ParseErr, oj.ParseErr)
		}
		if oj.ParseErr == nil || j != nil {
			was := JobFields{ID: oj.ID, Name: oj.Name, EnqueuedAt: oj.EnqueuedAt, Args: oj.Args, Unique: oj.Unique,
				Fails: oj.Fails, LastErr: oj.LastErr, FailedAt: oj.FailedAt}
			got := lj.JobFields
			got.UniqueKey = ""
			if !sameFields(got, was) {
				t.Fatalf("%q: list job\n got %+v\n was %+v", raw, got, was)
			}
		}
		if j != nil && oj.ParseErr != nil && lj.ParseErr.Error() != oj.ParseErr.Error() {
			t.Fatalf("%q: list job error %v, was %v", raw, lj.ParseErr, oj.ParseErr)
		}
	})
}

func sameFields(a, b JobFields) bool {
	return a.ID == b.ID && a.Name == b.Name && a.EnqueuedAt == b.EnqueuedAt && string(a.Args) == string(b.Args) &&
		(a.Args == nil) == (b.Args == nil) && a.Unique == b.Unique && a.UniqueKey == b.UniqueKey &&
		a.Fails == b.Fails && a.LastErr == b.LastErr && a.FailedAt == b.FailedAt
}

// plainKeys reports a valid object whose top-level keys appear once each
// and none of which matches a field's name only without regard to case.
func plainKeys(raw []byte) bool {
	ms, _, _, err := oldObjectMembers(raw)
	if err != nil {
		return false
	}
	seen := map[string]bool{}
	for _, m := range ms {
		k := m.key
		if seen[k] {
			return false
		}
		seen[k] = true
		for _, f := range []string{"id", "name", "t", "args", "unique", "unique_key", "fails", "err", "failed_at"} {
			if strings.EqualFold(k, f) && k != f {
				return false
			}
		}
	}
	return true
}

// Nesting deeper than encoding/json's limit is not valid JSON to either.
func TestReaderEquivalenceDeep(t *testing.T) {
	for _, n := range []int{9999, 10000, 10001} {
		for _, raw := range []string{
			strings.Repeat("[", n) + strings.Repeat("]", n),
			`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`,
			`{"a":` + strings.Repeat(`{"b":`, n-1) + "1" + strings.Repeat("}", n-1) + `}`,
		} {
			_, problem := ParseJobFields([]byte(raw))
			_, oldProblem := oldParseJobFields([]byte(raw))
			if problem != oldProblem {
				t.Errorf("depth %d %.12q: problem %q, was %q", n, raw, problem, oldProblem)
			}
		}
	}
}
