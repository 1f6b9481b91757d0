package textsafe

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Width is the number of terminal columns s takes: wide characters (CJK,
// most emoji) count two, combining marks and zero-width characters none.
// Escape sequences count nothing, so styled text measures as it shows.
func Width(s string) int { return ansi.StringWidth(s) }

// Fit cuts or pads s to exactly w columns. A cut ends in "…"; when the cut
// falls inside a two-column character the cell is padded back to w, so the
// next column starts where the header says. right pads on the left.
func Fit(s string, w int, right bool) string {
	if w <= 0 {
		return ""
	}
	if Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	sw := Width(s)
	if sw >= w {
		return s
	}
	pad := strings.Repeat(" ", w-sw)
	if right {
		return pad + s
	}
	return s + pad
}

// Cut shortens s to at most w columns with a trailing "…", never padding.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}
