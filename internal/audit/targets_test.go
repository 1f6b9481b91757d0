package audit

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// targetsField is the value of a line's targets field, as written.
func targetsField(t *testing.T, line string) string {
	t.Helper()
	_, rest, ok := strings.Cut(line, " targets=")
	if !ok {
		t.Fatalf("no targets field: %q", line)
	}
	if strings.HasPrefix(rest, `"`) {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			t.Fatalf("targets field of %q: %v", line, err)
		}
		return q
	}
	field, _, _ := strings.Cut(rest, " ")
	return field
}

// checkLine: a line is one line of printable ASCII, and its targets field
// reads back as exactly the targets given.
func checkLine(t *testing.T, targets []string) string {
	t.Helper()
	e := Entry{Time: time.Date(2026, 11, 29, 15, 30, 0, 0, time.UTC), Address: "redis:6379", Namespace: "work",
		Action: "pause", Targets: targets, Moved: 0, Result: "ok"}
	line := Format("ops", e)
	body, ok := strings.CutSuffix(line, "\n")
	if !ok {
		t.Fatalf("line does not end in a newline: %q", line)
	}
	for i := 0; i < len(body); i++ {
		if c := body[i]; c < ' ' || c >= 0x7f {
			t.Fatalf("byte %#x at %d of %q", c, i, line)
		}
	}
	got, err := ParseTargets(targetsField(t, line))
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	if len(got) == 0 && len(targets) == 0 {
		return line
	}
	if !reflect.DeepEqual(got, targets) {
		t.Fatalf("targets %q read back as %q from %q", targets, got, line)
	}
	return line
}

// TestTargetsUnambiguous: an id holding a comma never reads as two ids
// (an id "x,all" is not x and all), nor quotes and backslashes as the
// list's own; plain ids are written as they are.
func TestTargetsUnambiguous(t *testing.T) {
	for _, tc := range []struct {
		targets []string
		field   string
	}{
		{[]string{"a1", "b2"}, `a1,b2`},
		{[]string{"x,all"}, `"\"x,all\""`},
		{[]string{"x", "all"}, `x,all`},
		{[]string{"set=dead", "all", "job=x,all"}, `"set=dead,all,\"job=x,all\""`},
		{[]string{`a"b`, `c\d`}, `"\"a\\\"b\",\"c\\\\d\""`},
		{[]string{""}, `"\"\""`},
		{nil, `""`},
		{[]string{"where=since:2h job:x", "\x1b]0;t\x07", "\u202e"}, ""},
		{[]string{"ok", "", ","}, ""},
	} {
		line := checkLine(t, tc.targets)
		if tc.field != "" && targetsField(t, line) != tc.field {
			t.Errorf("targets %q: field %s, want %s", tc.targets, targetsField(t, line), tc.field)
		}
	}
	if _, err := ParseTargets(`a,`); err == nil {
		t.Error("a list ending in a comma read without error")
	}
}

// FuzzTargets: any targets (NUL separates them in the input) give one line
// of printable ASCII whose targets field reads back exactly.
func FuzzTargets(f *testing.F) {
	for _, s := range []string{"x,all", "a\x00b", "\"\x00\\", "", "\x00", "\u202e\x00\xff", "set=dead\x00all\x00job=a,b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var targets []string
		if s != "" {
			targets = strings.Split(s, "\x00")
		}
		checkLine(t, targets)
	})
}
