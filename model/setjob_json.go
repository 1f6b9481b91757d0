// One pass over a job's JSON: it validates the text exactly as
// encoding/json does and lists the top-level members of an object by byte
// offset, so that reading a job's fields (ParseJobFields) and editing its
// bytes (EditForRequeue) need no second pass and no decoder.

package model

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth is encoding/json's nesting limit: a deeper text is not valid
// JSON to it, nor to this scanner.
const maxJSONDepth = 10000

// scanState is how far an objectScan has got.
type scanState uint8

const (
	// scanMembers: inside the object, members left to read.
	scanMembers scanState = iota
	// scanDone: the whole text was read, a valid JSON object.
	scanDone
	// scanNotObject: a valid JSON text that is not an object.
	scanNotObject
	// scanInvalid: not valid JSON.
	scanInvalid
)

// member is one "key": value of a top-level object, by byte offsets: start
// is the key's opening quote, valStart and valEnd bound the value. key is
// the decoded key for the keys gocraft/work writes and for keys written
// with escapes; any other key reads as "".
type member struct {
	key                     string
	start, valStart, valEnd int
}

// objectScan walks a JSON text that should be an object, one top-level
// member per call of next, validating every byte it passes. The text is valid
// JSON and an object only when next has returned false with the state
// scanDone.
type objectScan struct {
	b []byte
	i int
	// n is the number of members returned; open the offset just after the
	// '{', closeAt that of the closing '}' once done.
	n, open, closeAt int
	state            scanState
}

func newObjectScan(b []byte) objectScan {
	s := objectScan{b: b}
	i := skipSpace(b, 0)
	if i < len(b) && b[i] == '{' {
		s.i, s.open = i+1, i+1
		return s
	}
	s.state = scanInvalid
	if end, ok := scanValue(b, i, 1); ok && skipSpace(b, end) == len(b) {
		s.state = scanNotObject
	}
	return s
}

// next reads the next member into m, or returns false at the end of the
// object or at the first byte that is not valid JSON (see state).
func (s *objectScan) next(m *member) bool {
	if s.state != scanMembers {
		return false
	}
	b := s.b
	i := skipSpace(b, s.i)
	if i < len(b) && b[i] == '}' {
		s.closeAt = i
		s.state = scanInvalid
		if skipSpace(b, i+1) == len(b) {
			s.state = scanDone
		}
		return false
	}
	if s.n > 0 {
		if i >= len(b) || b[i] != ',' {
			s.state = scanInvalid
			return false
		}
		i = skipSpace(b, i+1)
	}
	m.start = i
	end, escaped, ok := scanString(b, i)
	if ok {
		m.key = memberKey(b[i+1:end-1], escaped)
		i = skipSpace(b, end)
		ok = i < len(b) && b[i] == ':'
	}
	if ok {
		m.valStart = skipSpace(b, i+1)
		m.valEnd, ok = scanValue(b, m.valStart, 2)
	}
	if !ok {
		s.state = scanInvalid
		return false
	}
	s.i = m.valEnd
	s.n++
	return true
}

// memberKey is a key's text (between the quotes): the keys gocraft/work
// writes come back as constants, without an allocation each, and a key
// written with escapes is decoded; any other key is "".
func memberKey(lit []byte, escaped bool) string {
	if escaped {
		var b strings.Builder
		unquoteTo(&b, lit)
		return b.String()
	}
	switch string(lit) {
	case "name":
		return "name"
	case "id":
		return "id"
	case "t":
		return "t"
	case "args":
		return "args"
	case "unique":
		return "unique"
	case "unique_key":
		return "unique_key"
	case "fails":
		return "fails"
	case "err":
		return "err"
	case "failed_at":
		return "failed_at"
	}
	return ""
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue validates the JSON value at b[i] and returns the offset after
// it; depth is the nesting level an object or array there would have.
func scanValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; c {
	case '"':
		end, _, ok := scanString(b, i)
		return end, ok
	case '{', '[':
		if depth > maxJSONDepth {
			return i, false
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1, true
		}
		for {
			ok := true
			if c == '{' {
				var end int
				end, _, ok = scanString(b, i)
				if ok {
					i = skipSpace(b, end)
					ok = i < len(b) && b[i] == ':'
					i = skipSpace(b, i+1)
				}
			}
			if ok {
				i, ok = scanValue(b, i, depth+1)
			}
			if !ok {
				return i, false
			}
			i = skipSpace(b, i)
			switch {
			case i >= len(b):
				return i, false
			case b[i] == closer:
				return i + 1, true
			case b[i] != ',':
				return i, false
			}
			i = skipSpace(b, i+1)
		}
	case 't':
		return scanLiteral(b, i, "true")
	case 'f':
		return scanLiteral(b, i, "false")
	case 'n':
		return scanLiteral(b, i, "null")
	}
	return scanNumber(b, i)
}

func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// scanNumber validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// scanString validates the string literal at b[i] (which must be '"') and
// returns the offset after its closing quote and whether it holds escapes.
// As for encoding/json, any byte from 0x20 up is allowed as it is, valid
// UTF-8 or not.
func scanString(b []byte, i int) (end int, escaped, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false, false
	}
	for i++; ; i++ {
		i = plainRun(b, i)
		if i >= len(b) {
			return i, escaped, false
		}
		switch b[i] {
		case '"':
			return i + 1, escaped, true
		case '\\':
			escaped = true
			i++
			if i >= len(b) {
				return i, true, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 || hex4(b[i+1:i+5]) < 0 {
					return i, true, false
				}
				i += 4
			default:
				return i, true, false
			}
		default: // a control character
			return i, escaped, false
		}
	}
}

// plainRun returns the offset of the first byte from b[i] on that ends a
// run of plain string text: '"', '\\' or a control character; len(b) when
// there is none. It tests eight bytes at a time (a byte of x is below n
// where the high bit of (x - n*ones) &^ x is set, and zero where that of
// (x - ones) &^ x is), then finds the byte one at a time.
func plainRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; len(b)-i >= 8; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		quote, backslash := x^(ones*'"'), x^(ones*'\\')
		if ((x-ones*0x20)&^x|(quote-ones)&^quote|(backslash-ones)&^backslash)&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// hex4 reads four hex digits, -1 when they are not.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// unquoteTo writes the text of a valid string literal's content (between
// its quotes) as encoding/json decodes it (see unquoteAppend).
func unquoteTo(w *strings.Builder, lit []byte) {
	var small [256]byte
	w.Write(unquoteAppend(small[:0], lit))
}

// unquoteAppend appends the text of a valid string literal's content
// (between its quotes) to dst as encoding/json decodes it: escapes
// resolved, an unpaired surrogate and every byte of invalid UTF-8 written
// as U+FFFD.
func unquoteAppend(dst, lit []byte) []byte {
	for i := 0; i < len(lit); {
		c := lit[i]
		switch {
		case c == '\\':
			i++
			switch c = lit[i]; c {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(lit[i+1:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if len(lit)-i > 6 && lit[i+1] == '\\' && lit[i+2] == 'u' {
						r2 = hex4(lit[i+3:])
					}
					if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
						r = d
						i += 6
					} else {
						r = unicode.ReplacementChar
					}
				}
				dst = utf8.AppendRune(dst, r)
			default: // '"', '\\', '/'
				dst = append(dst, c)
			}
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(lit[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
	return dst
}
