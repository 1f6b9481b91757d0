package textsafe

import "testing"

func TestFitExactWidth(t *testing.T) {
	cases := []struct {
		name string
		in   string
	}{
		{"ascii", "web-host-1"},
		{"cjk", "死んだホスト"},
		{"emoji", "死んだホスト🙈"},
		{"combining", "e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301"},
		{"zero width", "a\u200bb\u200bc\u200bd"},
		{"mixed", "ホストA🙈b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for w := 1; w <= 16; w++ {
				for _, right := range []bool{false, true} {
					got := Fit(tc.in, w, right)
					if gw := Width(got); gw != w {
						t.Errorf("Fit(%q, %d, %v) = %q, %d columns", tc.in, w, right, got, gw)
					}
				}
			}
		})
	}
}

func TestWidthCountsColumns(t *testing.T) {
	for in, want := range map[string]int{
		"abc":             3,
		"死んだ":             6,
		"🙈":               2,
		"e\u0301":         1,
		"a\u200bb":        2,
		"\x1b[1mb\x1b[0m": 1,
	} {
		if got := Width(in); got != want {
			t.Errorf("Width(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestCutNeverPads(t *testing.T) {
	if got := Cut("死んだホスト", 5); Width(got) > 5 {
		t.Errorf("Cut = %q, %d columns", got, Width(got))
	}
	if got := Cut("ab", 5); got != "ab" {
		t.Errorf("Cut(ab, 5) = %q", got)
	}
}
