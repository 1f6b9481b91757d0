// What every plan renderer shares: a table aligned by display columns and
// the wrapping of long lines to a width (the screen's dialog). Every string
// from Redis goes through textsafe.Clean before it is written.

package reaper

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// table lines up cells in columns two spaces apart, measured in display
// columns (a CJK name takes two per character); the last cell of a row is
// not padded.
type table struct{ rows [][]string }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write appends the aligned rows to b, one line each.
func (t *table) write(b *strings.Builder) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r[:len(r)-1] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], textsafe.Width(c))
		}
	}
	for _, r := range t.rows {
		for i, c := range r[:len(r)-1] {
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-textsafe.Width(c)+2))
		}
		b.WriteString(r[len(r)-1])
		b.WriteByte('\n')
	}
	t.rows = nil
}

// wrapText breaks every line of s that is wider than width display
// columns; width <= 0 leaves s as it is.
func wrapText(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, wrapLine(l, width)...)
	}
	return strings.Join(out, "\n")
}

// wrapLine breaks a line at spaces so that no row is wider than width; a
// word wider than a row is cut. Rows after the first are indented two
// columns more than the line (when that leaves room).
func wrapLine(line string, width int) []string {
	if textsafe.Width(line) <= width {
		return []string{line}
	}
	body := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(body)]
	if len(indent) > width/2 {
		indent = ""
	}
	cont := indent + "  "
	if len(cont) > width/2 {
		cont = indent
	}
	var rows []string
	prefix, row, rowW := indent, "", 0
	flush := func() {
		rows = append(rows, prefix+row)
		prefix, row, rowW = cont, "", 0
	}
	for _, tok := range splitKeepingGaps(body) {
		gap, word := tok[0], tok[1]
		room := width - len(prefix)
		ww := textsafe.Width(word)
		if row != "" && rowW+len(gap)+ww <= room {
			row += gap + word
			rowW += len(gap) + ww
			continue
		}
		if row != "" {
			flush()
			room = width - len(prefix)
		}
		for ww > room {
			head := ansi.Truncate(word, room, "")
			if head == "" { // a character wider than the room
				_, size := utf8.DecodeRuneInString(word)
				head = word[:size]
			}
			row = head
			flush()
			room = width - len(prefix)
			word = word[len(head):]
			ww = textsafe.Width(word)
		}
		row, rowW = word, ww
	}
	if row != "" || len(rows) == 0 {
		flush()
	}
	return rows
}

// splitKeepingGaps splits s into words, each with the run of spaces before
// it: [gap, word] pairs.
func splitKeepingGaps(s string) [][2]string {
	var out [][2]string
	for s != "" {
		word := strings.TrimLeft(s, " ")
		gap := s[:len(s)-len(word)]
		end := strings.IndexByte(word, ' ')
		if end < 0 {
			end = len(word)
		}
		out = append(out, [2]string{gap, word[:end]})
		s = word[end:]
	}
	return out
}

// WrapText breaks every line of s wider than width display columns at
// spaces (a word wider than a row is cut); width <= 0 leaves s as it is.
func WrapText(s string, width int) string { return wrapText(s, width) }
