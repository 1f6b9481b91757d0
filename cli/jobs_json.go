package cli

import (
	"strconv"
	"unicode/utf8"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// jsonSafe escapes, in JSON that encoding/json wrote, every rune that
// textsafe.Clean would not print as it is (DEL, C1 controls, bidirectional
// overrides and isolates): encoding/json already escapes the C0 controls
// and U+2028/U+2029 but writes these raw, and a raw U+202E in piped output
// reorders what a terminal shows. Outside strings such JSON is ASCII, so
// every rune replaced is inside a string, where \uXXXX means the same rune:
// the decoded document is unchanged.
func jsonSafe(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := append([]byte(nil), b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		s := string(b[i : i+size])
		if r != utf8.RuneError && textsafe.Clean(s) == s {
			out = append(out, s...)
		} else {
			// r < 0x10000: DEL, C1 and the bidi controls are all in the BMP.
			out = append(out, `\u`...)
			h := strconv.FormatInt(int64(r), 16)
			for k := len(h); k < 4; k++ {
				out = append(out, '0')
			}
			out = append(out, h...)
		}
		i += size
	}
	return out
}
