package cli

// This file owns the FINDINGS section of snapshot's table, and how its
// tables fit 80 columns: IDs shortened as the screen shortens them, long
// details wrapped under their column (--wide: neither).

import (
	"fmt"
	"io"
	"strings"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// tableWidth is the width snapshot's tables fit without --wide.
const tableWidth = 80

// tableCells are the cut-offs of snapshot's table: the narrow ones fit
// 80 columns, the wide ones print IDs whole.
type tableCells struct {
	wide bool
	// host, jobs, counts, job and checkin are the widths long cells are
	// cut to.
	host, jobs, counts, job, checkin int
}

func newTableCells(wide bool) tableCells {
	if wide {
		return tableCells{wide: true, host: 60, jobs: 40, counts: 50, job: 30, checkin: 40}
	}
	return tableCells{host: 16, jobs: 18, job: 16, checkin: 16}
}

// id is an ID as the table shows it: whole with --wide, else shortened.
func (tc tableCells) id(s string) string {
	if tc.wide {
		return textsafe.Clean(s)
	}
	return textsafe.Clean(model.ShortID(s))
}

// writeFindings prints the findings, one row each: kind, subject and the
// detail, which (without --wide) wraps under its own column.
func writeFindings(w io.Writer, snap *model.Snapshot, tc tableCells) {
	fmt.Fprintf(w, "FINDINGS (%d)\n", len(snap.Findings))
	if len(snap.Findings) == 0 {
		fmt.Fprintln(w, "nothing wrong")
		return
	}
	kinds := make([]string, len(snap.Findings))
	subjects := make([]string, len(snap.Findings))
	kindW, subjW := 0, 0
	for i, f := range snap.Findings {
		kinds[i] = f.Kind
		switch f.Kind {
		case model.FindingDeadPool, model.FindingLatePool, model.FindingLongRunning, model.FindingOrphan:
			subjects[i] = tc.id(f.Subject)
		default:
			subjects[i] = textsafe.Clean(f.Subject)
			if !tc.wide {
				subjects[i] = textsafe.Cut(subjects[i], 24)
			}
		}
		kindW = max(kindW, textsafe.Width(kinds[i]))
		subjW = max(subjW, textsafe.Width(subjects[i]))
	}
	col := kindW + 2 + subjW + 2
	for i, f := range snap.Findings {
		detail := textsafe.Clean(f.Detail)
		lines := []string{detail}
		if !tc.wide {
			lines = wrapWords(detail, max(tableWidth-col, 30))
		}
		fmt.Fprintf(w, "%s%s%s\n", pad(kinds[i], kindW+2), pad(subjects[i], subjW+2), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", col), l)
		}
	}
}

// pad is s with spaces up to display width w.
func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-textsafe.Width(s), 0))
}

// wrapWords splits s into lines of at most width display columns, at
// spaces; a word longer than width has a line of its own.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case textsafe.Width(line)+1+textsafe.Width(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}
