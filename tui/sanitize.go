package tui

import "github.com/workq-tui/workq-tui/internal/textsafe"

// clean makes text read from Redis (or an error that may quote it) safe to
// put on the screen: control characters, bidirectional overrides and
// invalid UTF-8 become visible escapes, so the text is one line that cannot
// move the cursor or restyle the screen. Every string from a snapshot, a
// job or an error passes through it before it is rendered.
func clean(s string) string { return textsafe.Clean(s) }

// safeRune reports whether a typed rune may go into the filter as it is.
func safeRune(r rune) bool { return textsafe.Clean(string(r)) == string(r) }
