// Package shellword writes the words of the command lines the program
// prints for a person to paste into a shell (explain's fixes, the hints
// that name a command): each word quoted so that the shell passes it
// exactly, and values read from Redis placed where no command can read
// them as a flag.
package shellword

import (
	"strings"
	"unicode/utf8"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// plain are the bytes a word may hold and stay unquoted: none has a
// meaning to bash, zsh, POSIX sh or fish (= only after the first byte,
// where zsh would expand =cmd).
const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@=,+"

// Quote is s as one shell word that bash, zsh and POSIX sh read back as
// exactly s: as it is when it holds only plain characters; in single
// quotes when it prints as it is; else in ANSI-C quotes ($'...', bash
// and zsh), with each control character, bidirectional control and byte
// that is not UTF-8 written as the escape textsafe.Clean uses (\n, \x1b,
// \u202e, \xff), which is also the shell's: the line stays printable and
// names s exactly. A NUL byte cannot be in an argument (see Quotable).
func Quote(s string) string {
	if s != "" && s[0] != '=' && strings.Trim(s, plain) == "" {
		return s
	}
	if textsafe.Clean(s) == s {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\'':
			b.WriteString(`\'`)
		default:
			// One rune (or one bad byte) at a time: Clean escapes it or
			// leaves it, never merging it with the next.
			b.WriteString(textsafe.Clean(s[i : i+size]))
		}
		i += size
	}
	b.WriteString("'")
	return b.String()
}

// Quotable reports whether s can be passed as an argument at all: a NUL
// byte ends a C string, so no command line can carry one.
func Quotable(s string) bool { return !strings.ContainsRune(s, 0) }

// Operands is operands as the last words of a command: after "--" when
// one of them begins with '-', so that a value read from Redis (a job
// named --all-dead) is an operand, never a flag.
func Operands(operands ...string) []string {
	for _, o := range operands {
		if strings.HasPrefix(o, "-") {
			return append([]string{"--"}, operands...)
		}
	}
	return operands
}

// Flag is a flag and its value as words: "--name" "value", or one word
// "--name=value" when the value begins with '-' and could be read as a
// flag of its own.
func Flag(name, value string) []string {
	if strings.HasPrefix(value, "-") {
		return []string{"--" + name + "=" + value}
	}
	return []string{"--" + name, value}
}
