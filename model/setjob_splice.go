package model

// This file owns the byte edits of an edited or duplicated job: one
// top-level member's value replaced in the stored bytes, every other byte
// kept, so that the field order, the escapes and the numbers of the rest
// of the job stay exactly as gocraft/work (or whoever) wrote them.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ReplaceField returns raw with the value of its top-level member key
// replaced by value (valid JSON, written as given), or, when raw has no
// such member, with `,"key":value` added at the end. A member that appears
// twice, or raw that is not a JSON object, is ErrNotEditable.
func ReplaceField(raw []byte, key string, value []byte) ([]byte, error) {
	ms, open, _, err := objectMembers(raw, make([]member, 0, 8))
	if err != nil {
		return nil, err
	}
	at := -1
	for i, m := range ms {
		if m.key == key {
			if at >= 0 {
				return nil, fmt.Errorf("%w: field %s appears twice", ErrNotEditable, key)
			}
			at = i
		}
	}
	out := make([]byte, 0, len(raw)+len(value)+len(key)+4)
	if at >= 0 {
		m := ms[at]
		out = append(out, raw[:m.valStart]...)
		out = append(out, value...)
		return append(out, raw[m.valEnd:]...), nil
	}
	// The new member goes after the last one, or just after '{'.
	tail := open
	if len(ms) > 0 {
		tail = ms[len(ms)-1].valEnd
	}
	out = append(out, raw[:tail]...)
	if len(ms) > 0 {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, `":`...)
	out = append(out, value...)
	return append(out, raw[tail:]...), nil
}

// ArgsOf is the bytes of a job's args value as stored (nil when the job
// has no args member), or ErrNotEditable.
func ArgsOf(raw []byte) ([]byte, error) {
	ms, _, _, err := objectMembers(raw, make([]member, 0, 8))
	if err != nil {
		return nil, err
	}
	var args []byte
	for _, m := range ms {
		if m.key == "args" {
			if args != nil {
				return nil, fmt.Errorf("%w: field args appears twice", ErrNotEditable)
			}
			args = raw[m.valStart:m.valEnd]
		}
	}
	return args, nil
}

// ArgsError is edited arguments that are not a JSON object: Line and
// Column (1-based) locate the first byte that is wrong (0 when the text
// is valid JSON but not an object).
type ArgsError struct {
	Line, Column int
	Msg          string
}

func (e *ArgsError) Error() string {
	if e.Line == 0 {
		return "the arguments must be a JSON object: " + e.Msg
	}
	return fmt.Sprintf("the arguments are not valid JSON: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// CompactArgs checks edited arguments (a JSON object, as gocraft/work's
// Job.Args is) and returns them compacted as encoding/json writes a job:
// no insignificant space, every value's text kept as typed (numbers are
// not rounded, escapes not rewritten). A text that is not a JSON object
// is an *ArgsError.
func CompactArgs(text []byte) ([]byte, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, argsSyntax(text, err)
	}
	if _, err := dec.Token(); err == nil {
		off := int(dec.InputOffset())
		line, col := position(text, off)
		return nil, &ArgsError{Line: line, Column: col, Msg: "text after the object"}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, &ArgsError{Msg: fmt.Sprintf("got %s", jsonKind(v))}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, bytes.TrimSpace(text)); err != nil {
		return nil, argsSyntax(text, err)
	}
	return out.Bytes(), nil
}

// argsSyntax turns a decoder's error into an *ArgsError with its position.
func argsSyntax(text []byte, err error) error {
	var se *json.SyntaxError
	switch {
	case len(bytes.TrimSpace(text)) == 0:
		return &ArgsError{Msg: "the text is empty"}
	case errors.As(err, &se):
		line, col := position(text, int(se.Offset)-1)
		return &ArgsError{Line: line, Column: col, Msg: se.Error()}
	}
	line, col := position(text, len(text))
	return &ArgsError{Line: line, Column: col, Msg: err.Error()}
}

// position is the 1-based line and column (in bytes) of offset off.
func position(text []byte, off int) (line, col int) {
	off = max(0, min(off, len(text)))
	line = 1 + bytes.Count(text[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(text[:off], '\n')
	return line, col
}

// jsonKind names what a decoded JSON value is.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}
