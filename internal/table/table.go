// Package table writes plain-text tables whose columns line up by display
// width: a CJK character or an emoji takes two columns, a combining mark or
// a zero-width character none (text/tabwriter counts runes, so a wide
// character shifts every later column of its row).
package table

import (
	"io"
	"strings"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// Table collects rows and writes them with each column as wide as its
// widest cell plus the gap. The last cell of a row is not padded, so no
// line ends in spaces. Cells must already be safe to print
// (textsafe.Clean): the table measures them, it does not clean them.
type Table struct {
	gap  int
	rows [][]string
}

// New returns a table whose columns are separated by gap spaces.
func New(gap int) *Table { return &Table{gap: gap} }

// Row adds one row.
func (t *Table) Row(cells ...string) { t.rows = append(t.rows, cells) }

// WriteTo writes the rows, one line each.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r[:max(len(r)-1, 0)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], textsafe.Width(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-textsafe.Width(c)+t.gap))
			}
		}
		b.WriteByte('\n')
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
