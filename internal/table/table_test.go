package table

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// TestColumnsAlignByDisplayWidth: every column of every row starts at the
// same display column, whatever the width of the text before it.
func TestColumnsAlignByDisplayWidth(t *testing.T) {
	cells := map[string]string{
		"ascii":      "web-1",
		"cjk":        "死んだホスト",
		"emoji":      "host🙈",
		"flag emoji": "🇯🇵x",
		"combining":  "cafe\u0301",
		"zero-width": "a\u200bb\u200dc",
		"mixed":      "ホスト🙈e\u0301",
	}
	tb := New(2)
	tb.Row("NAME", "HOST", "COUNT", "LAST")
	for name, host := range cells {
		tb.Row(name, host, "12", "end")
	}
	var b strings.Builder
	if _, err := tb.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(cells)+1 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	// The header says where COUNT and LAST start; every row must agree.
	countAt := colOf(t, lines[0], "COUNT")
	lastAt := colOf(t, lines[0], "LAST")
	for _, l := range lines[1:] {
		if got := colOf(t, l, "12"); got != countAt {
			t.Errorf("COUNT at column %d, want %d: %q", got, countAt, l)
		}
		if got := colOf(t, l, "end"); got != lastAt {
			t.Errorf("LAST at column %d, want %d: %q", got, lastAt, l)
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space: %q", l)
		}
	}
	// The HOST column is as wide as its widest cell (CJK: 12 columns) plus
	// the gap.
	hostAt := colOf(t, lines[0], "HOST")
	if countAt-hostAt != 12+2 {
		t.Errorf("HOST column %d wide, want 14:\n%s", countAt-hostAt, b.String())
	}
}

func TestRaggedRowsAndEmpty(t *testing.T) {
	var b strings.Builder
	if _, err := New(2).WriteTo(&b); err != nil || b.String() != "" {
		t.Fatalf("empty table wrote %q, %v", b.String(), err)
	}
	tb := New(1)
	tb.Row("a", "b", "c")
	tb.Row("long")
	tb.Row("x", "y")
	b.Reset()
	if _, err := tb.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if want := "a b c\nlong\nx y\n"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

// colOf is the display column where cell starts in line; a missing cell
// fails the test.
func colOf(t *testing.T, line, cell string) int {
	t.Helper()
	i := strings.Index(line, cell)
	if i < 0 {
		t.Fatalf("%q not in %q", cell, line)
	}
	return textsafe.Width(line[:i])
}
