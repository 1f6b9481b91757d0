package model

import (
	"strings"

	"github.com/workq-tui/workq-tui/internal/shellword"
)

// fixWords is a fix's command line: the command's words, then operands
// read from Redis (job names, pool IDs, keys) after "--" when one of them
// begins with '-', so that a job named --all-dead is never read as a flag.
func fixWords(cmd []string, operands ...string) []string {
	return append(append([]string(nil), cmd...), shellword.Operands(operands...)...)
}

// quoted is words as a shell command line, each quoted.
func quoted(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellword.Quote(w)
	}
	return strings.Join(out, " ")
}
