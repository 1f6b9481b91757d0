package model

import (
	"errors"
	"fmt"
)

// RequeueEdit is how a stored job becomes the requeued one: the bytes of
// the new job before the value of its new enqueue time `t` and after it
// (when the job had no t, Before ends with the text `,"t":`). Every other
// byte is the stored one, so arguments survive exactly (a 17-digit integer
// stays one, `[]` stays `[]`, key order and escapes are kept), which
// gocraft/work's own requeue, re-encoding through Lua's cjson, does not
// guarantee. The requeue script writes Before, t, After.
type RequeueEdit struct {
	Before, After []byte
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
	// One buffer for both halves: at most the stored bytes and `,"t":`.
	_, edit, err := AppendRequeued(make([]byte, 0, len(raw)+5), raw, dropFailure, "")
	return edit, err
}

// AppendRequeued appends to dst the requeued job EditForRequeue describes,
// with t as its `t`: the edit's Before and After are the bytes around t in
// what was appended. A caller that cuts many jobs into one buffer
// allocates once for all of them. On an error dst is returned as it was.
func AppendRequeued(dst, raw []byte, dropFailure bool, t string) ([]byte, RequeueEdit, error) {
	var buf [8]member
	ms, open, closeAt, err := objectMembers(raw, buf[:])
	if err != nil {
		return dst, RequeueEdit{}, err
	}
	tIndex := -1
	for i, m := range ms {
		if m.key == "t" {
			if tIndex >= 0 {
				return dst, RequeueEdit{}, fmt.Errorf("%w: field t appears twice", ErrNotEditable)
			}
			tIndex = i
		}
	}
	if len(ms) > 0 {
		open = ms[0].start // keep the space after '{'
	}
	from := len(dst)
	out := dst
	keep := func(start, end int) { out = append(out, raw[start:end]...) }
	cut := -1
	keep(0, open)
	wrote := false
	for i, m := range ms {
		if dropFailure && failureField(m.key) {
			continue
		}
		if wrote {
			// The separator written before this member in the original.
			keep(ms[i-1].valEnd, m.start)
		}
		if i == tIndex {
			keep(m.start, m.valStart)
			cut = len(out)
			out = append(out, t...)
		} else {
			keep(m.start, m.valEnd)
		}
		wrote = true
	}
	if tIndex < 0 {
		if wrote {
			out = append(out, ',')
		}
		out = append(out, `"t":`...)
		cut = len(out)
		out = append(out, t...)
	}
	tailFrom := closeAt
	if len(ms) > 0 {
		tailFrom = ms[len(ms)-1].valEnd
	}
	keep(tailFrom, len(raw))
	// Whole members of a valid object were kept or dropped, with their
	// separators, and t's value is a number: the result is valid JSON.
	edit := RequeueEdit{Before: out[from:cut:cut], After: out[cut+len(t) : len(out) : len(out)]}
	return out, edit, nil
}

// objectMembers lists the members of a JSON text that is an object, with
// the offset just after its '{' and the offset of its '}'; ErrNotEditable
// when the text is not valid JSON or not an object.
// The members are appended to buf[:0]: a caller that keeps them no
// longer than itself passes an array of its own (gocraft/work writes at
// most 8 fields), so that a bulk requeue's edit of each job allocates
// nothing for them.
func objectMembers(raw []byte, buf []member) (ms []member, open, closeAt int, err error) {
	s := newObjectScan(raw)
	ms = buf[:0]
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
