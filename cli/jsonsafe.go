package cli

import (
	"fmt"
	"unicode/utf8"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// jsonSafe returns JSON written by encoding/json with every rune that
// textsafe.Clean would escape written as a \u escape: DEL, the C1 controls
// and the bidirectional overrides and isolates, which encoding/json writes
// as they are (it escapes only the C0 controls, U+2028 and U+2029), and
// which a terminal acts on when the output is not redirected. Bytes that
// are not UTF-8 (a raw JSON value passes through encoding/json unchecked)
// become \ufffd. Outside its strings such JSON is ASCII, so every rune
// replaced is inside a string, where the escape stands for the same rune:
// the document decodes to the same value.
func jsonSafe(b []byte) []byte {
	var out []byte // nil until the first rune to escape
	for i := 0; i < len(b); {
		if b[i] < 0x7f {
			if out != nil {
				out = append(out, b[i])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		s := string(b[i : i+size])
		escape := r == utf8.RuneError && size == 1
		if !escape {
			escape = textsafe.Clean(s) != s
		}
		if escape && out == nil {
			out = append(make([]byte, 0, len(b)+16), b[:i]...)
		}
		switch {
		case escape && r == utf8.RuneError:
			out = append(out, `\ufffd`...)
		case escape:
			// Every rune Clean escapes is in the Basic Multilingual Plane.
			out = fmt.Appendf(out, `\u%04x`, r)
		case out != nil:
			out = append(out, s...)
		}
		i += size
	}
	if out == nil {
		return b
	}
	return out
}
