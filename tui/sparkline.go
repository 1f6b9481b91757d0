package tui

// This file owns the header's failure sparkline: the failures of every
// job type per minute over the last hour (model.JobHealth.Minutes, from
// the sets at start and extended by each poll), one cell a minute, as
// many of the latest minutes as the width holds.

import (
	"fmt"
	"strings"
)

// sparkLevels are the cells: the first for a minute without a failure.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// failureSparkline is "fail/min 1h ▁▁▂▅█ max 52" within width, the cells
// scaled to the busiest minute shown; "" when no minute of the hour had a
// failure or the width holds fewer than 10 minutes.
func failureSparkline(minutes []int, width int, st styles) string {
	peak := 0
	for _, n := range minutes {
		peak = max(peak, n)
	}
	if peak == 0 {
		return ""
	}
	tail := fmt.Sprintf(" max %d", peak)
	n := len(minutes)
	label := func(n int) string {
		if n == 60 {
			return "fail/min 1h "
		}
		return fmt.Sprintf("fail/min %dm ", n)
	}
	for n > 0 && lineWidth(label(n))+n+lineWidth(tail) > width {
		n--
	}
	if n < 10 {
		return ""
	}
	shown := minutes[len(minutes)-n:]
	peak = 0
	for _, c := range shown {
		peak = max(peak, c)
	}
	if peak == 0 {
		return ""
	}
	tail = fmt.Sprintf(" max %d", peak)
	var b strings.Builder
	for _, c := range shown {
		if c == 0 {
			b.WriteString(st.faint.Render(string(sparkLevels[0])))
			continue
		}
		lvl := max(1, (c*(len(sparkLevels)-1)+peak-1)/peak)
		b.WriteString(st.dead.Render(string(sparkLevels[lvl])))
	}
	return st.faint.Render(label(n)) + b.String() + st.faint.Render(tail)
}
