package cli

import "testing"

func TestDarkBackground(t *testing.T) {
	for _, tc := range []struct {
		theme, colorfgbg string
		dark             bool
	}{
		{"dark", "0;15", true},
		{"light", "15;0", false},
		{"auto", "", true},            // nothing known: dark
		{"auto", "15;0", true},        // black background
		{"auto", "0;15", false},       // white background
		{"auto", "0;7", false},        // light grey background
		{"auto", "7;default;0", true}, // rxvt's three fields
		{"auto", "0;default", true},   // not a colour: dark
		{"auto", "garbage", true},
	} {
		dark, err := darkBackground(tc.theme, func(k string) string {
			if k == "COLORFGBG" {
				return tc.colorfgbg
			}
			return ""
		})
		if err != nil || dark != tc.dark {
			t.Errorf("--theme %s, COLORFGBG=%q: dark %v, %v; want %v", tc.theme, tc.colorfgbg, dark, err, tc.dark)
		}
	}
	if _, stderr, code := runCLI(t, input{tty: true}, "--theme", "blue"); code != ExitUsage || errorLines(stderr) != 1 {
		t.Errorf("--theme blue: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, input{}, "snapshot", "--theme", "dark"); code != ExitUsage || errorLines(stderr) != 1 {
		t.Errorf("snapshot --theme: exit %d, %q", code, stderr)
	}
}
