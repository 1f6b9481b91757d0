package tui

// This file bounds what the detail of a member of a job set costs to
// draw: a member can be megabytes (a job enqueued with a huge argument),
// and its detail is drawn on every frame while it is under the cursor. At
// most detailMaxBytes of each of its fields is drawn, followed by how many
// bytes were left out, and the lines that do not change between frames
// (its error, its arguments, its bytes) are kept for as long as the same
// member is shown at the same width.

import (
	"fmt"
	"unicode/utf8"

	"github.com/workq-tui/workq-tui/model"
)

// detailMaxBytes is how much of one field of a member its detail draws: a
// few hundred lines at 80 columns, more than anyone scrolls through on a
// screen; `workq-tui jobs show` prints the whole member.
const detailMaxBytes = 16 << 10

// cellMaxBytes is how much of a field a row of the list cleans and cuts
// to its cell: far more than a cell of any terminal shows.
const cellMaxBytes = 1 << 10

// bounded is s cut to at most n bytes, at the start of a UTF-8 sequence,
// and how many bytes were cut off.
func bounded(s string, n int) (string, int) {
	if len(s) <= n {
		return s, 0
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], len(s) - cut
}

// boundedBytes is bounded for bytes: only what is kept is copied.
func boundedBytes(b []byte, n int) (string, int) {
	if len(b) <= n {
		return string(b), 0
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]), len(b) - cut
}

// moreText is the line after a field cut by bounded.
func moreText(n int) string { return fmt.Sprintf("… %d bytes more", n) }

// detailKey names what a member's cached lines were drawn from: the
// member's bytes (where they are and how many: a page read again holds new
// ones) and the width.
type detailKey struct {
	raw   *byte
	n     int
	width int
}

func detailKeyOf(sj model.SetJob, width int) detailKey {
	k := detailKey{n: len(sj.Raw), width: width}
	if len(sj.Raw) > 0 {
		k.raw = &sj.Raw[0]
	}
	return k
}

// detailCache holds the lines of the last member drawn that do not depend
// on the clock. It is shared by the copies of the view that made it (a
// view is a value): every copy that asks for another member or width
// draws it again, so a copy never sees another member's lines.
type detailCache struct {
	key   detailKey
	ok    bool
	lines []string
}

// tail is the member's lines that do not change between frames, from the
// cache when they were drawn for the same member and width; a nil cache
// draws them every time.
func (c *detailCache) tail(sj model.SetJob, width int) []string {
	if c == nil {
		return memberTail(sj, width)
	}
	k := detailKeyOf(sj, width)
	if !c.ok || c.key != k {
		c.key, c.ok, c.lines = k, true, memberTail(sj, width)
	}
	return c.lines
}
