package model

// The reader of job JSON as it was before the one-pass scanner, kept here
// only to check that the scanner reads every input the same way.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// oldJobFields are the fields gocraft/work writes in a job's JSON.
type oldJobFields struct {
	ID   string
	Name string
	// T is `t`, the enqueue time in epoch seconds.
	T int64
	// Args is `args` exactly as stored (null, an object, ...); nil when the
	// field is absent.
	Args json.RawMessage
	// Unique is true for EnqueueUnique jobs; UniqueKey is the `unique_key`
	// field written by newer gocraft builds ("" when absent).
	Unique    bool
	UniqueKey string
	Fails     int64
	Err       string
	FailedAt  int64
}

// oldParseJobFields decodes a job's JSON loosely: nil and a problem when raw is
// not a JSON object; otherwise the fields, with a problem naming any field
// of an unexpected type (that field is left zero). When a field appears
// twice the last one counts, as with encoding/json.
func oldParseJobFields(raw []byte) (*oldJobFields, string) {
	if !json.Valid(raw) {
		var v map[string]json.RawMessage
		err := json.Unmarshal(raw, &v)
		return nil, "not a JSON object: " + err.Error()
	}
	ms, _, _, err := oldObjectMembers(raw)
	if err != nil {
		return nil, "not a JSON object"
	}
	j := &oldJobFields{}
	var bad []string
	str := func(name string, v []byte, dst *string) {
		if len(v) == 0 || v[0] != '"' {
			if string(v) != "null" {
				bad = append(bad, name)
			}
			return
		}
		s, err := oldJsonString(v)
		if err != nil {
			bad = append(bad, name)
			return
		}
		*dst = s
	}
	num := func(name string, v []byte, dst *int64) {
		if string(v) == "null" {
			return
		}
		n, err := oldJsonSeconds(v)
		if err != nil {
			bad = append(bad, name)
			return
		}
		*dst = n
	}
	for _, m := range ms {
		v := raw[m.valStart:m.valEnd]
		switch m.key {
		case "id":
			str(m.key, v, &j.ID)
		case "name":
			str(m.key, v, &j.Name)
		case "err":
			str(m.key, v, &j.Err)
		case "unique_key":
			str(m.key, v, &j.UniqueKey)
		case "t":
			num(m.key, v, &j.T)
		case "fails":
			num(m.key, v, &j.Fails)
		case "failed_at":
			num(m.key, v, &j.FailedAt)
		case "unique":
			switch string(v) {
			case "true":
				j.Unique = true
			case "false", "null":
				j.Unique = false
			default:
				bad = append(bad, m.key)
			}
		case "args":
			j.Args = json.RawMessage(v)
		}
	}
	if len(bad) > 0 {
		return j, "field of an unexpected type: " + strings.Join(bad, ", ")
	}
	return j, ""
}

// oldJsonSeconds reads a JSON number (a float is truncated).
func oldJsonSeconds(b []byte) (int64, error) {
	if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return i, nil
	}
	if len(b) == 0 || b[0] == '"' {
		return 0, fmt.Errorf("not a number")
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, err
	}
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a number")
	}
	return int64(f), nil
}

// oldEditForRequeue prepares the requeue of a stored job: `t` is replaced (or
// appended when absent) and, with dropFailure (dead to queue), the fields
// fails, err and failed_at are removed, as gocraft/work does. Nothing else
// changes.
func oldEditForRequeue(raw []byte, dropFailure bool) (RequeueEdit, error) {
	if !json.Valid(raw) {
		return RequeueEdit{}, fmt.Errorf("%w: not valid JSON", ErrNotEditable)
	}
	ms, open, closeAt, err := oldObjectMembers(raw)
	if err != nil {
		return RequeueEdit{}, err
	}
	tIndex := -1
	for i, m := range ms {
		if m.key == "t" {
			if tIndex >= 0 {
				return RequeueEdit{}, fmt.Errorf("%w: field t appears twice", ErrNotEditable)
			}
			tIndex = i
		}
	}
	if len(ms) > 0 {
		open = ms[0].start // keep the space after '{'
	}
	e := RequeueEdit{raw: raw}
	e.keep(0, open)
	wrote := false
	for i, m := range ms {
		if dropFailure && failureField(m.key) {
			continue
		}
		if wrote {
			// The separator written before this member in the original.
			e.keep(ms[i-1].valEnd, m.start)
		}
		if i == tIndex {
			e.keep(m.start, m.valStart)
			e.parts = append(e.parts, editPart{now: true})
		} else {
			e.keep(m.start, m.valEnd)
		}
		wrote = true
	}
	if tIndex < 0 {
		lit := `"t":`
		if wrote {
			lit = `,"t":`
		}
		e.parts = append(e.parts, editPart{lit: lit}, editPart{now: true})
	}
	tailFrom := closeAt
	if len(ms) > 0 {
		tailFrom = ms[len(ms)-1].valEnd
	}
	e.keep(tailFrom, len(raw))
	// Whole members of a valid object were kept or dropped, with their
	// separators, and t's value is a number: the result is valid JSON.
	return e, nil
}

// oldObjectMembers lists the members of a valid JSON text that is an object,
// with the offset just after its '{' and the offset of its '}'.
func oldObjectMembers(raw []byte) (ms []member, open, closeAt int, err error) {
	i := oldSkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, 0, 0, fmt.Errorf("%w: not a JSON object", ErrNotEditable)
	}
	i++
	open = i
	ms = make([]member, 0, 8) // gocraft/work writes at most 8 fields
	for {
		i = oldSkipSpace(raw, i)
		if raw[i] == '}' {
			return ms, open, i, nil
		}
		if raw[i] == ',' {
			i = oldSkipSpace(raw, i+1)
		}
		m := member{start: i}
		end := oldSkipString(raw, i)
		key, err := oldMemberKey(raw[i:end])
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%w: %v", ErrNotEditable, err)
		}
		m.key = key
		i = oldSkipSpace(raw, end)
		i = oldSkipSpace(raw, i+1) // ':'
		m.valStart = i
		i = oldSkipValue(raw, i)
		m.valEnd = i
		ms = append(ms, m)
	}
}

// oldMemberKey decodes a member's key; the keys gocraft/work writes come back
// as constants, without an allocation each.
func oldMemberKey(lit []byte) (string, error) {
	if len(lit) >= 2 {
		switch string(lit[1 : len(lit)-1]) {
		case "name":
			return "name", nil
		case "id":
			return "id", nil
		case "t":
			return "t", nil
		case "args":
			return "args", nil
		case "unique":
			return "unique", nil
		case "unique_key":
			return "unique_key", nil
		case "fails":
			return "fails", nil
		case "err":
			return "err", nil
		case "failed_at":
			return "failed_at", nil
		}
	}
	return oldJsonString(lit)
}

// oldJsonString decodes a JSON string literal; one without escapes is taken as
// it is, without a decoder.
func oldJsonString(lit []byte) (string, error) {
	if len(lit) >= 2 && bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1]), nil
	}
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}

func oldSkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// oldSkipString returns the offset after the string starting at b[i] == '"'.
func oldSkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// oldSkipValue returns the offset after the value starting at b[i] (valid JSON).
func oldSkipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return oldSkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = oldSkipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// oldJob is a gocraft/work job as stored in a list, read loosely: a field of an
// unexpected type is left at its zero value rather than failing the job.
type oldJob struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// EnqueuedAt is `t` (unix seconds, a float truncated), 0 when missing.
	EnqueuedAt int64 `json:"t"`
	// Args is the `args` object as it was stored.
	Args json.RawMessage `json:"args,omitempty"`
	// Fails, LastErr (`err`) and FailedAt (unix seconds) are set on a job
	// that failed before; Unique on a job enqueued as unique.
	Fails    int64  `json:"fails,omitempty"`
	LastErr  string `json:"err,omitempty"`
	FailedAt int64  `json:"failed_at,omitempty"`
	Unique   bool   `json:"unique,omitempty"`
	// Raw is the whole stored item.
	Raw string `json:"-"`
	// ParseErr is set when the item is not a JSON object or `t` is missing
	// or not a number.
	ParseErr error `json:"-"`
}

// oldParseJob reads a stored job. It never fails: what cannot be read is in
// ParseErr, and the raw text is kept in Raw.
func oldParseJob(raw string) oldJob {
	j := oldJob{Raw: raw}
	var v struct {
		ID       any             `json:"id"`
		Name     any             `json:"name"`
		T        json.RawMessage `json:"t"`
		Args     json.RawMessage `json:"args"`
		Fails    json.RawMessage `json:"fails"`
		Err      any             `json:"err"`
		FailedAt json.RawMessage `json:"failed_at"`
		Unique   any             `json:"unique"`
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		j.ParseErr = fmt.Errorf("not a JSON object: %w", err)
		return j
	}
	j.ID, _ = v.ID.(string)
	j.Name, _ = v.Name.(string)
	j.LastErr, _ = v.Err.(string)
	j.Unique, _ = v.Unique.(bool)
	j.Args = v.Args
	j.Fails, _ = oldParseJSONSeconds(v.Fails)
	j.FailedAt, _ = oldParseJSONSeconds(v.FailedAt)
	if len(v.T) == 0 || string(v.T) == "null" {
		j.ParseErr = errors.New("no enqueue time (t)")
		return j
	}
	t, err := oldParseJSONSeconds(v.T)
	if err != nil {
		j.ParseErr = fmt.Errorf("enqueue time (t) %s is not a number", truncate(string(v.T), 40))
		return j
	}
	j.EnqueuedAt = t
	return j
}

// oldParseJSONSeconds reads a JSON number (gocraft writes integers; a float is
// accepted and truncated). An absent value reads as 0 with an error.
func oldParseJSONSeconds(b json.RawMessage) (int64, error) {
	if len(b) == 0 {
		return 0, errors.New("absent")
	}
	if b[0] == '"' {
		return 0, errors.New("a string, not a number")
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, err
	}
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil {
		return 0, err
	}
	return int64(f), nil
}
