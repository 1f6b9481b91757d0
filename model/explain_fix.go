package model

import "github.com/workq-tui/workq-tui/internal/shellword"

// fixWords is a fix's command line: the command's words, then operands
// read from Redis (job names, pool IDs, keys) after "--" when one of them
// begins with '-', so that a job named --all-dead is never read as a flag.
func fixWords(cmd []string, operands ...string) []string {
	return append(append([]string(nil), cmd...), shellword.Operands(operands...)...)
}
