package tui

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// screenSafe reports the first byte or rune of s that must never reach a
// terminal from data: a C0 control (newline aside, where allowed), DEL, a
// C1 control, a bidirectional override or isolate, or invalid UTF-8.
func screenSafe(s string, newlines bool) (bad string, ok bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return s[i : i+1], false
		case r == '\n' && newlines:
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return string(r), false
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c ||
			r == 0x2028 || r == 0x2029:
			return string(r), false
		}
		i += size
	}
	return "", true
}

// FuzzRenderJob renders any in-progress payload (JSON or not, with escape
// sequences, control characters, invalid UTF-8 in names, ids, args or
// errors) the way the detail view does, and checks that no line holds a
// character that could move the cursor or restyle the terminal, and that a
// line cut to the width is no wider. Its seeds run in make test.
func FuzzRenderJob(f *testing.F) {
	f.Add("email", `{"name":"email","id":"abc","t":1764428400,"args":{"to":"a@b"}}`)
	f.Add("e\x1b[2Jmail", `{"name":"\u001b]0;pwned\u0007","id":"\u009b31m","t":1,"args":{"x":"\u202etxt"}}`)
	f.Add("", "not json \x1b[31m at all\r\n")
	f.Add("job", `{"name":"j","id":"i","t":"soon","args":[1,2,{"a":null}],"fails":3,"err":"boom\nline2\x1b[0m"}`)
	f.Add("job", "{\"name\":\"\xff\xfe\",\"id\":\"\x7f\",\"t\":1e300,\"args\":{\"\xc0\":\"\x1b\"}}")
	f.Add("j", `{"args":"`+strings.Repeat("A", 5000)+`"}`)
	f.Fuzz(func(t *testing.T, jobName, payload string) {
		lines := renderJob(1, peekedJob{jobName: jobName, payload: payload}, time.Unix(1764428400, 0))
		if len(lines) == 0 {
			t.Fatalf("nothing rendered")
		}
		for _, l := range lines {
			if bad, ok := screenSafe(l, false); !ok {
				t.Fatalf("line %q holds %q", l, bad)
			}
			cut := fitLine(l, 80)
			if lineWidth(cut) > 80 {
				t.Fatalf("line cut to 80 is %d wide: %q", lineWidth(cut), cut)
			}
			if bad, ok := screenSafe(cut, false); !ok {
				t.Fatalf("cut line %q holds %q", cut, bad)
			}
		}
	})
}
