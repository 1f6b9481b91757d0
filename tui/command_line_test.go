package tui

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// commandLines fits a command line into the width at the places a shell
// reads the same, and sh reads the lines as the words they came from.
func TestCommandLines(t *testing.T) {
	query := "since:2026-11-29T14:00:00Z until:2026-11-29T14:04:59Z"
	words := []string{"workq-tui", "--redis", "redis-primary.internal:6379", "--namespace", "shop", "jobs", "dead", "--where"}
	pieces := make([]shellPiece, 0, len(words)+2)
	for _, w := range words {
		pieces = append(pieces, shellPiece{text: w})
	}
	pieces = append(pieces, queryPieces("'"+query+"'")...)
	for _, width := range []int{40, 60, 80, 200} {
		lines := commandLines(pieces, width, "  ", "    ")
		for _, l := range lines {
			if textsafe.Width(l) > width {
				t.Errorf("width %d: line %q is %d columns", width, l, textsafe.Width(l))
			}
		}
		if width == 200 && len(lines) != 1 {
			t.Errorf("width 200: %d lines, want one:\n%s", len(lines), strings.Join(lines, "\n"))
		}
		// sh prints each word it reads on a line of its own; the query's
		// line break is a space to the query language.
		out, err := exec.Command("sh", "-c", "printf '%s|' "+strings.Join(lines, "\n")).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "|"), "|")
		want := append(append([]string(nil), words...), query)
		if len(got) != len(want) {
			t.Fatalf("width %d: sh reads %q from\n%s", width, got, strings.Join(lines, "\n"))
		}
		for i := range want {
			if strings.Join(strings.Fields(got[i]), " ") != want[i] {
				t.Errorf("width %d: word %d is %q, want %q", width, i, got[i], want[i])
			}
		}
	}
}
