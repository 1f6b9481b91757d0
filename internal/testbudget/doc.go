// Package testbudget counts what the screen's tests hold of its
// internals: the reads of the root model's unexported fields and the
// calls of its unexported methods in tui's own test files. Its test
// fails when the reads pass their budget, so that tests go through the
// screen's keys and text (internal/screentest) rather than its state,
// which every reshaping of the screen would otherwise have to follow.
package testbudget
