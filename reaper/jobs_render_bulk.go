package reaper

import (
	"fmt"
	"io"
	"strconv"

	textable "github.com/workq-tui/workq-tui/internal/table"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// renderBulkSummary writes what a bulk plan matched: the total, the span of
// their scores, the counts by job type (with whether a live pool serves
// it) and by error.
func renderBulkSummary(w io.Writer, p JobsPlan) {
	m := p.Matched
	line := fmt.Sprintf("Matched: %s", model.Plural(m.Sum.Members, "job", "jobs"))
	if m.Valid {
		line += fmt.Sprintf(", %s from %s to %s", p.Target.Set.ScoreField(), scoreTime(m.First), scoreTime(m.Last))
	}
	fmt.Fprintln(w, line+".")
	tb := textable.New(2)
	tb.Row("  job name", "jobs", "live pool")
	for _, c := range model.Sorted(m.Sum.ByName) {
		serves := "serves it"
		if !p.Serves(c.Key) {
			serves = "none"
		}
		if p.Paused(c.Key) {
			serves += " (paused)"
		}
		tb.Row("  "+textsafe.Clean(c.Key), strconv.FormatInt(c.N, 10), serves)
	}
	if m.Sum.NotJobs > 0 {
		tb.Row("  (not JSON)", strconv.FormatInt(m.Sum.NotJobs, 10), "-")
	}
	_, _ = tb.WriteTo(w)
	if len(m.Sum.ByError) == 0 {
		return
	}
	tb = textable.New(2)
	tb.Row("  error (numbers as N, hex IDs as <id>)", "jobs")
	errs := model.Sorted(m.Sum.ByError)
	for i, c := range errs {
		if i == 10 {
			tb.Row(fmt.Sprintf("  (%d more errors)", len(errs)-i), "")
			break
		}
		key := c.Key
		if key == "" {
			key = "(no error)"
		}
		tb.Row("  "+textsafe.Cut(textsafe.Clean(key), 70), strconv.FormatInt(c.N, 10))
	}
	_, _ = tb.WriteTo(w)
}
