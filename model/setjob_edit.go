package model

import (
	"errors"
	"fmt"
)

// RequeueEdit is how a stored job becomes the requeued one: pieces of the
// stored bytes, kept in order, with the new enqueue time `t` (and, when the
// job had no t, the text `,"t":` before it) placed between them. Every other
// byte is the stored one, so arguments survive exactly (a 17-digit integer
// stays one, `[]` stays `[]`, key order and escapes are kept), which
// gocraft/work's own requeue, re-encoding through Lua's cjson, does not
// guarantee.
type RequeueEdit struct {
	raw   []byte
	parts []editPart
}

// editPart is raw[start:end], or the literal lit, or (now) the new t.
type editPart struct {
	start, end int
	lit        string
	now        bool
}

func (e *RequeueEdit) keep(start, end int) {
	if start >= end {
		return
	}
	if n := len(e.parts); n > 0 && !e.parts[n-1].now && e.parts[n-1].lit == "" && e.parts[n-1].end == start {
		e.parts[n-1].end = end
		return
	}
	e.parts = append(e.parts, editPart{start: start, end: end})
}

// With returns the edited job with t set to now.
func (e RequeueEdit) With(now int64) []byte {
	out := make([]byte, 0, len(e.raw)+20)
	for _, p := range e.parts {
		switch {
		case p.now:
			out = fmt.Appendf(out, "%d", now)
		case p.lit != "":
			out = append(out, p.lit...)
		default:
			out = append(out, e.raw[p.start:p.end]...)
		}
	}
	return out
}

// Recipe is the edit for a script that holds the stored bytes: comma
// separated, "s-e" for the bytes s to e (1-based, inclusive, as Lua's
// string.sub takes them), "T" for the new t and "L" for lit.
func (e RequeueEdit) Recipe() (recipe, lit string) {
	var b []byte
	for i, p := range e.parts {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case p.now:
			b = append(b, 'T')
		case p.lit != "":
			b = append(b, 'L')
			lit = p.lit
		default:
			b = fmt.Appendf(b, "%d-%d", p.start+1, p.end)
		}
	}
	return string(b), lit
}

// failureField reports the fields gocraft/work drops when it requeues a
// dead job.
func failureField(key string) bool { return key == "fails" || key == "err" || key == "failed_at" }

// ErrNotEditable is returned for a member that cannot be requeued byte for
// byte: not a JSON object, or holding `t` twice.
var ErrNotEditable = errors.New("job JSON cannot be edited")

// EditForRequeue prepares the requeue of a stored job: `t` is replaced (or
// appended when absent) and, with dropFailure (dead to queue), the fields
// fails, err and failed_at are removed, as gocraft/work does. Nothing else
// changes.
func EditForRequeue(raw []byte, dropFailure bool) (RequeueEdit, error) {
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

// objectMembers lists the members of a JSON text that is an object, with
// the offset just after its '{' and the offset of its '}'; ErrNotEditable
// when the text is not valid JSON or not an object.
func objectMembers(raw []byte) (ms []member, open, closeAt int, err error) {
	s := newObjectScan(raw)
	ms = make([]member, 0, 8) // gocraft/work writes at most 8 fields
	var m member
	for s.next(&m) {
		ms = append(ms, m)
	}
	switch s.state {
	case scanDone:
		return ms, s.open, s.closeAt, nil
	case scanNotObject:
		return nil, 0, 0, fmt.Errorf("%w: not a JSON object", ErrNotEditable)
	}
	return nil, 0, 0, fmt.Errorf("%w: not valid JSON", ErrNotEditable)
}
