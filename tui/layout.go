package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// layout is where things go on a screen of a given size. It is a pure
// function of the window size and of the measured heights of the header and
// the footer (which grow with an error line, the full help, ...).
type layout struct {
	width, height  int
	header, footer int
	// body is the height left for the focused view; at least 0.
	body int
	// tooSmall is set when the body cannot show a single row of a list
	// under its column header.
	tooSmall bool
}

// minBody is the smallest useful body: a column header and one row.
const minBody = 2

func computeLayout(width, height, headerHeight, footerHeight int) layout {
	l := layout{width: max(width, 0), height: max(height, 0), header: headerHeight, footer: footerHeight}
	l.body = max(l.height-headerHeight-footerHeight, 0)
	l.tooSmall = l.body < minBody || l.width < 20
	return l
}

// colSpec is a column as wanted: a fixed column has min == max; max 0 means
// no upper bound.
type colSpec struct {
	title    string
	min, max int
	right    bool
	// name is the column's name in the configuration file's
	// [columns.VIEW]; the title in lower case when empty.
	name string
	// grow orders the columns that grow (lowest first, then in the order
	// shown); keep ranks which stay on a narrow screen (the lowest goes
	// first; 0 never goes).
	grow, keep int
}

// column is a column as laid out. cell is the index of its cell in a row's
// cells, which are in the order of the view's specs.
type column struct {
	title string
	width int
	right bool
	cell  int
}

// colGap is the space between two columns.
const colGap = 1

// fitColumns lays the columns out in width: every column gets its minimum,
// then the flexible ones grow in the order given, each up to its maximum,
// until the width is used up (a column without maximum takes the rest).
// When even the minimums do not fit, the renderer cuts the row at the right
// edge.
func fitColumns(specs []colSpec, width int) []column {
	cols := make([]column, len(specs))
	used := 0
	for i, s := range specs {
		cols[i] = column{title: s.title, width: s.min, right: s.right, cell: i}
		used += s.min
	}
	used += colGap * max(len(specs)-1, 0)
	free := width - used
	order := make([]int, len(specs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return specs[a].grow - specs[b].grow })
	for _, i := range order {
		s := specs[i]
		if free <= 0 {
			break
		}
		grow := free
		if s.max != 0 {
			grow = min(free, s.max-cols[i].width)
		}
		cols[i].width += grow
		free -= grow
	}
	return cols
}

// renderCells joins cell texts into a row of the columns: each cell cut to
// its width (with an ellipsis) and padded. Cells must be clean already.
func renderCells(cols []column, cells []string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(strings.Repeat(" ", colGap))
		}
		text := ""
		if c.cell < len(cells) {
			text = cells[c.cell]
		}
		b.WriteString(fitCell(text, c.width, c.right))
	}
	return b.String()
}

// fitCell cuts or pads s to exactly w columns; a cut inside a two-column
// character is padded back to w, so the next column starts where its title
// does.
func fitCell(s string, w int, right bool) string { return textsafe.Fit(s, w, right) }

// fitLine cuts a (possibly styled) line to the width, never wrapping.
func fitLine(s string, w int) string { return textsafe.Cut(s, w) }

// fitBlock makes s exactly h lines, each at most w cells: long lines are
// cut, missing lines are blank, extra lines are dropped.
func fitBlock(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = fitLine(l, w)
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// height is the number of lines of a rendered block.
func height(s string) int { return lipgloss.Height(s) }

// lineWidth is the width in columns of a (possibly styled) line.
func lineWidth(s string) int { return textsafe.Width(s) }
