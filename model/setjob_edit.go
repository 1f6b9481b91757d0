package model

import (
	"encoding/json"
	"errors"
	"fmt"
)

// RequeueEdit is a job's JSON with `t` cut out: the requeued job is Pre, the
// new enqueue time in decimal, then Post. Every other byte is the stored
// one, so arguments survive exactly (a 17-digit integer stays one, `[]`
// stays `[]`, key order and escapes are kept), which gocraft/work's own
// requeue, re-encoding through Lua's cjson, does not guarantee.
type RequeueEdit struct {
	Pre, Post []byte
}

// With returns the edited job with t set to now.
func (e RequeueEdit) With(now int64) []byte {
	out := make([]byte, 0, len(e.Pre)+len(e.Post)+20)
	out = append(out, e.Pre...)
	out = fmt.Appendf(out, "%d", now)
	return append(out, e.Post...)
}

// failureFields are what gocraft/work drops when it requeues a dead job.
var failureFields = map[string]bool{"fails": true, "err": true, "failed_at": true}

// ErrNotEditable is returned for a member that cannot be requeued byte for
// byte: not a JSON object, or holding `t` twice.
var ErrNotEditable = errors.New("job JSON cannot be edited")

// EditForRequeue prepares the requeue of a stored job: `t` is replaced (or
// appended when absent) and, with dropFailure (dead to queue), the fields
// fails, err and failed_at are removed, as gocraft/work does. Nothing else
// changes.
func EditForRequeue(raw []byte, dropFailure bool) (RequeueEdit, error) {
	if !json.Valid(raw) {
		return RequeueEdit{}, fmt.Errorf("%w: not valid JSON", ErrNotEditable)
	}
	ms, open, closeAt, err := objectMembers(raw)
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
	var out []byte
	out = append(out, raw[:open]...)
	var pre []byte
	wrote := false
	for i, m := range ms {
		if dropFailure && failureFields[m.key] {
			continue
		}
		if wrote {
			// The separator written before this member in the original.
			out = append(out, raw[ms[i-1].valEnd:m.start]...)
		}
		if i == tIndex {
			out = append(out, raw[m.start:m.valStart]...)
			pre = out
			out = []byte{}
		} else {
			out = append(out, raw[m.start:m.valStart]...)
			out = append(out, raw[m.valStart:m.valEnd]...)
		}
		wrote = true
	}
	if tIndex < 0 {
		if wrote {
			out = append(out, ',')
		}
		out = append(out, `"t":`...)
		pre = out
		out = []byte{}
	}
	tailFrom := closeAt
	if len(ms) > 0 {
		tailFrom = ms[len(ms)-1].valEnd
	}
	out = append(out, raw[tailFrom:]...)
	e := RequeueEdit{Pre: pre, Post: out}
	if !json.Valid(e.With(0)) {
		return RequeueEdit{}, fmt.Errorf("%w: edited JSON is not valid", ErrNotEditable)
	}
	return e, nil
}

// member is one "key": value of a top-level object, by byte offsets: start
// is the key's opening quote, valStart and valEnd bound the value.
type member struct {
	key                     string
	start, valStart, valEnd int
}

// objectMembers lists the members of a valid JSON text that is an object,
// with the offset just after its '{' and the offset of its '}'.
func objectMembers(raw []byte) (ms []member, open, closeAt int, err error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, 0, 0, fmt.Errorf("%w: not a JSON object", ErrNotEditable)
	}
	i++
	open = i
	for {
		i = skipSpace(raw, i)
		if raw[i] == '}' {
			return ms, open, i, nil
		}
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		m := member{start: i}
		end := skipString(raw, i)
		var key string
		if err := json.Unmarshal(raw[i:end], &key); err != nil {
			return nil, 0, 0, fmt.Errorf("%w: %v", ErrNotEditable, err)
		}
		m.key = key
		i = skipSpace(raw, end)
		i = skipSpace(raw, i+1) // ':'
		m.valStart = i
		i = skipValue(raw, i)
		m.valEnd = i
		ms = append(ms, m)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
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

// skipValue returns the offset after the value starting at b[i] (valid JSON).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
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
