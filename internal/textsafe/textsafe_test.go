package textsafe

import "testing"

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"web-1", "web-1"},
		{"report:daily", "report:daily"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`},
		{"bidi\u202etxt.exe", `bidi\u202etxt.exe`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{`back\slash`, `back\slash`},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzClean(f *testing.F) {
	f.Add("\x1b[2J")
	f.Add("ok")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !isClean(out) {
			t.Fatalf("Clean(%q) = %q still has unsafe characters", s, out)
		}
		if isClean(s) && out != s {
			t.Fatalf("Clean changed clean text %q to %q", s, out)
		}
	})
}
