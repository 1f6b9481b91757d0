package tui

// This file owns the header's counts line: the pools and job types
// counted, the job set sizes, the sweep's age and the views' names, laid
// out by width. Narrower, the sweep's age goes first; the set sizes are
// never dropped for a dead pool's count: they move beside the views'
// names, or onto a line of their own.

import (
	"fmt"
	"strings"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// headerCounts are the counts in full ("5 pools · dead pools 2 · 1 late ·
// 3 job types") and compact ("5 pools (2 dead, 1 late) · 3 types").
func headerCounts(d headerData, st styles) (full, compact []string) {
	if d.snap != nil {
		c := d.counts
		full = append(full, plural(c.pools, "pool", "pools"))
		var pools, types []string
		if c.dead > 0 {
			full = append(full, st.dead.Render(fmt.Sprintf("dead pools %d", c.dead)))
			pools = append(pools, st.dead.Render(fmt.Sprintf("%d dead", c.dead)))
		}
		if c.late > 0 {
			full = append(full, st.warn.Render(fmt.Sprintf("%d late", c.late)))
			pools = append(pools, st.warn.Render(fmt.Sprintf("%d late", c.late)))
		}
		full = append(full, plural(c.jobTypes, "job type", "job types"))
		if c.drift > 0 {
			full = append(full, st.dead.Render(fmt.Sprintf("%d drift", c.drift)))
			types = append(types, st.dead.Render(fmt.Sprintf("%d drift", c.drift)))
		}
		if c.paused > 0 {
			full = append(full, st.warn.Render(fmt.Sprintf("%d paused", c.paused)))
			types = append(types, st.warn.Render(fmt.Sprintf("%d paused", c.paused)))
		}
		group := func(head string, parts []string) string {
			if len(parts) == 0 {
				return head
			}
			return head + " (" + strings.Join(parts, ", ") + ")"
		}
		compact = append(compact, group(plural(c.pools, "pool", "pools"), pools), group(plural(c.jobTypes, "type", "types"), types))
	}
	var more []string
	if d.scan.completed && d.orphans > 0 {
		more = append(more, st.dead.Render(plural(d.orphans, "orphan", "orphans")))
	}
	if d.scan.running {
		more = append(more, st.faint.Render("scanning…"))
	}
	if v := d.sweep.variant; v.Said() {
		// The build that wrote the namespace changes what its lists mean
		// (a master stand-in, Harbor's periodic runs): it stays.
		more = append(more, st.warn.Render("writer "+textsafe.Clean(v.Name)))
	}
	return append(full, more...), append(compact, more...)
}

// countsLines lays out the counts (left, or compact when left is too
// wide), the set sizes, the sweep's age and the views' names (strips:
// full names, short names) within width: the counts line and up to two
// more lines ("" when unused).
func countsLines(left, compact, sets, sweep string, strips []string, width int) (line2, line3, line4 string) {
	join := func(parts ...string) string {
		var keep []string
		for _, p := range parts {
			if p != "" {
				keep = append(keep, p)
			}
		}
		return strings.Join(keep, " · ")
	}
	fits := func(l string) bool { return lineWidth(l) <= width }
	strip := strips[1]
	if fits(strips[0]) {
		strip = strips[0]
	}
	// The tabs share the line only with the set sizes kept.
	beside := []string{join(left, sets, sweep), join(left, sets)}
	if sets == "" {
		beside = []string{join(left, sweep), left}
	}
	for _, l := range beside {
		if lineWidth(l)+3+lineWidth(strips[0]) <= width {
			return l + strings.Repeat(" ", width-lineWidth(l)-lineWidth(strips[0])) + strips[0], "", ""
		}
	}
	for _, c := range []string{left, compact} {
		for _, l := range []string{join(c, sets, sweep), join(c, sets)} {
			if fits(l) {
				return l, strip, ""
			}
		}
	}
	line2 = compact
	if fits(left) {
		line2 = left
	}
	if sets == "" {
		return line2, strip, ""
	}
	for _, s := range strips {
		if lineWidth(sets)+3+lineWidth(s) <= width {
			return line2, sets + strings.Repeat(" ", width-lineWidth(sets)-lineWidth(s)) + s, ""
		}
	}
	return line2, sets, strip
}
