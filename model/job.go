// Jobs as gocraft/work stores them (JSON), and the one loose reader of
// them that the snapshot, the queue and job-set pages, the bulk plans, the
// CLI and the screen share.

package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// JobFields are the fields gocraft/work writes in a job's JSON, named as
// its Job type names them.
type JobFields struct {
	// ID is `id`, Name `name`.
	ID   string
	Name string
	// EnqueuedAt is `t`, the enqueue time in epoch seconds (a float is
	// truncated).
	EnqueuedAt int64
	// Args is `args` exactly as stored (null, an object, ...); nil when the
	// field is absent.
	Args json.RawMessage
	// Unique is true for EnqueueUnique jobs; UniqueKey is the `unique_key`
	// field written by newer gocraft builds ("" when absent).
	Unique    bool
	UniqueKey string
	// Fails, LastErr (`err`) and FailedAt (`failed_at`, epoch seconds) are
	// set on a job that failed before.
	Fails    int64
	LastErr  string
	FailedAt int64
}

// Periodic reports a periodic instance (id "periodic:..."): the periodic
// enqueuer writes it into scheduled again on its next pass.
func (j *JobFields) Periodic() bool { return strings.HasPrefix(j.ID, "periodic:") }

// Job is a gocraft/work job as stored in a list, read loosely: a field of an
// unexpected type is left at its zero value rather than failing the job.
type Job struct {
	JobFields
	// Raw is the whole stored item.
	Raw string
	// ParseErr is set when the item is not a JSON object or `t` is missing
	// or not a number.
	ParseErr error
}

// ParseJob reads a stored job as ParseJobFields does. It never fails: what
// cannot be read is in ParseErr, and the raw text is kept in Raw.
func ParseJob(raw string) Job {
	b := []byte(raw)
	j := Job{Raw: raw}
	r := readJob(b, &j.JobFields, nil)
	switch {
	case r.state != scanDone:
		j.JobFields = JobFields{}
		j.ParseErr = errors.New(r.problem(b))
	case len(r.t) == 0 || string(r.t) == "null":
		j.EnqueuedAt = 0
		j.ParseErr = errors.New("no enqueue time (t)")
	case r.badT:
		j.EnqueuedAt = 0
		j.ParseErr = fmt.Errorf("enqueue time (t) %s is not a number", truncate(string(r.t), 40))
	}
	return j
}

// ParseJobFields reads a job's JSON loosely: nil and a problem when raw is
// not a JSON object; otherwise the fields, with a problem naming any field
// of an unexpected type (that field is left zero). When a field appears
// twice the last one counts, as with encoding/json; keys match exactly, as
// in the Lua scripts that edit jobs.
func ParseJobFields(raw []byte) (*JobFields, string) {
	j := new(JobFields)
	r := readJob(raw, j, nil)
	if r.state != scanDone {
		return nil, r.problem(raw)
	}
	return j, r.problem(raw)
}

// jobRead is what one pass over a job's bytes found besides its fields.
type jobRead struct {
	// state is scanDone for a valid JSON object.
	state scanState
	// bad lists the fields of an unexpected type, in the order read.
	bad []string
	// t is the last `t` value's bytes, nil when absent; badT is set when
	// it is not a number (nor null).
	t    []byte
	badT bool
}

// textSpan is where a string field's text lies in the job's bytes.
type textSpan struct {
	start, end   int
	escaped, set bool
}

// readJob reads a job's fields into f in one pass over its bytes, which it
// validates as it goes (see objectScan); f holds no meaning unless the
// state is scanDone. The string fields are cut from text, shared with other
// jobs read together, or from one allocation of their own when text is
// nil.
func readJob(raw []byte, f *JobFields, text *strings.Builder) jobRead {
	r, spans := scanJob(raw, f)
	if r.state != scanDone {
		return r
	}
	if text == nil {
		n := 0
		for _, sp := range spans {
			if sp.set {
				n += sp.end - sp.start
			}
		}
		text = new(strings.Builder)
		text.Grow(n)
	}
	for i, dst := range []*string{&f.ID, &f.Name, &f.LastErr, &f.UniqueKey} {
		sp := spans[i]
		if !sp.set {
			continue
		}
		from := text.Len()
		if sp.escaped {
			unquoteTo(text, raw[sp.start:sp.end])
		} else {
			text.Write(raw[sp.start:sp.end])
		}
		*dst = text.String()[from:]
	}
	return r
}

// Where scanJob's spans keep each text field.
const (
	spanID = iota
	spanName
	spanErr
	spanUniqueKey
	spanFields
)

// scanJob is readJob's pass over the bytes: it reads the fields that are
// not text into f and finds where the text fields' last values lie, cutting
// no string.
func scanJob(raw []byte, f *JobFields) (jobRead, [spanFields]textSpan) {
	var r jobRead
	var spans [spanFields]textSpan
	s := newObjectScan(raw)
	var m member
	for s.next(&m) {
		v := raw[m.valStart:m.valEnd]
		field := -1
		switch m.key {
		case "id":
			field = spanID
		case "name":
			field = spanName
		case "err":
			field = spanErr
		case "unique_key":
			field = spanUniqueKey
		case "t":
			r.t = v
			r.badT = !r.seconds(m.key, v, &f.EnqueuedAt)
		case "fails":
			r.seconds(m.key, v, &f.Fails)
		case "failed_at":
			r.seconds(m.key, v, &f.FailedAt)
		case "unique":
			switch string(v) {
			case "true":
				f.Unique = true
			case "false", "null":
				f.Unique = false
			default:
				r.bad = append(r.bad, m.key)
			}
		case "args":
			f.Args = json.RawMessage(v)
		}
		if field < 0 {
			continue
		}
		switch v[0] {
		case '"':
			sp := textSpan{start: m.valStart + 1, end: m.valEnd - 1, set: true}
			sp.escaped = bytes.IndexByte(raw[sp.start:sp.end], '\\') >= 0
			spans[field] = sp
		case 'n': // null leaves the field as it was
		default:
			r.bad = append(r.bad, m.key)
		}
	}
	r.state = s.state
	if r.state != scanDone {
		return jobRead{state: r.state}, [spanFields]textSpan{}
	}
	return r, spans
}

// FailureText is what the job health takes from a failed job: `name`,
// `err` and `failed_at`, read as ParseJobFields reads them (the same
// validation, the same rule for a field that is repeated, null or of
// another type), with ok false where ParseJobFields returns nil. The texts
// are raw's own bytes, or, for a text written with escapes, unquoted into
// buf's; nothing is allocated unless buf must grow. buf is returned for
// the next call.
func FailureText(raw, buf []byte) (name, errText []byte, failedAt int64, out []byte, ok bool) {
	if name, errText, failedAt, ok := failureTextLayout(raw); ok {
		return name, errText, failedAt, buf, true
	}
	var f JobFields
	r, spans := scanJob(raw, &f)
	if r.state != scanDone {
		return nil, nil, 0, buf, false
	}
	buf = buf[:0]
	var at [2]int
	for i, field := range [2]int{spanName, spanErr} {
		sp := spans[field]
		if sp.escaped {
			at[i] = len(buf)
			buf = unquoteAppend(buf, raw[sp.start:sp.end])
		}
	}
	text := func(i, field int, end int) []byte {
		sp := spans[field]
		switch {
		case !sp.set:
			return nil
		case sp.escaped:
			return buf[at[i]:end:end]
		}
		return raw[sp.start:sp.end:sp.end]
	}
	nameEnd, errEnd := len(buf), len(buf)
	if spans[spanErr].escaped {
		nameEnd = at[1]
	}
	return text(0, spanName, nameEnd), text(1, spanErr, errEnd), f.FailedAt, buf, true
}

// seconds reads a number field into dst (a float is truncated; null leaves
// dst as it was) and reports whether it could.
func (r *jobRead) seconds(key string, v []byte, dst *int64) bool {
	if string(v) == "null" {
		return true
	}
	if n, ok := jsonSeconds(v); ok {
		*dst = n
		return true
	}
	r.bad = append(r.bad, key)
	return false
}

// problem says why a job read is not clean: not a JSON object (with
// encoding/json's account of a syntax error), or fields of an unexpected
// type; "" when it is clean.
func (r *jobRead) problem(raw []byte) string {
	switch r.state {
	case scanDone:
		if len(r.bad) == 0 {
			return ""
		}
		return "field of an unexpected type: " + strings.Join(r.bad, ", ")
	case scanNotObject:
		return "not a JSON object"
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil {
		return "not a JSON object: " + err.Error()
	}
	return "not a JSON object"
}

// jsonSeconds reads a valid JSON value that is a number (a float is
// truncated); false for any other value, and for a number no float64
// holds.
func jsonSeconds(v []byte) (int64, bool) {
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	if n, ok := smallInt(v); ok {
		return n, true
	}
	if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return int64(f), true
}

// smallInt reads an integer of at most 18 digits, which int64 holds.
func smallInt[T string | []byte](v T) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	if len(v) == i || len(v)-i > 18 {
		return 0, false
	}
	var n int64
	for ; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// truncate cuts s to n bytes with "..." for a message; callers clean the
// message before it reaches a terminal.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
