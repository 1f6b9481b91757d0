package tui

import (
	"strings"
	"unicode/utf8"
)

// clean makes text read from Redis safe to put on the screen: control
// characters (C0, DEL, C1, which include ESC and so every terminal escape
// sequence), Unicode bidirectional overrides and invalid UTF-8 become '?',
// a tab becomes a space. The result never spans more than one line. Strings
// that need nothing are returned as they are, without allocating.
func clean(s string) string {
	if !needsClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteByte('?')
		case r == '\t':
			b.WriteByte(' ')
		case unsafeRune(r):
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// cleanLines is clean for multi-line text: each line is cleaned on its own
// and the line breaks are kept.
func cleanLines(s string) string {
	if !needsClean(strings.ReplaceAll(s, "\n", "")) {
		return s
	}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = clean(l)
	}
	return strings.Join(lines, "\n")
}

func needsClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return true
		}
		if c >= 0x80 {
			// Slow path for the rest: multi-byte runes.
			for _, r := range s[i:] {
				if r == utf8.RuneError || unsafeRune(r) {
					return true
				}
			}
			return !utf8.ValidString(s[i:])
		}
	}
	return false
}

func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		// bidirectional embeddings, overrides and isolates: they reorder
		// what follows them on the line.
		return true
	case r == 0xfeff:
		return true
	}
	return false
}
