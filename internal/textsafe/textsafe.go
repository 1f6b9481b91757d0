// Package textsafe makes text read from Redis (host names, job names, job
// arguments) safe to print on a terminal: control characters become visible
// escapes, so a value cannot move the cursor, change colours, set the window
// title or reorder the text around it.
package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Clean returns s with every C0 control (including tab and newline), DEL,
// every C1 control, the Unicode bidirectional overrides and isolates, and
// every byte that is not valid UTF-8 replaced by a visible escape: \x1b,
// \n, \t, \r, \x7f, \u009b, \u202e, \xff. Other text is unchanged.
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			return isCleanSlow(s)
		}
	}
	return true
}

func isCleanSlow(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || r < 0x20 || r == 0x7f || unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

// unsafeRune: C1 controls, bidi embeddings, overrides and isolates, and the
// line and paragraph separators.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}
