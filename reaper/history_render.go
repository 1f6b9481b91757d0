package reaper

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// HistoryItemLimit bounds the items RenderAction lists.
const HistoryItemLimit = 200

// resultLines bounds the lines of an action's result RenderAction shows.
const resultLines = 12

// RenderAction writes what an action changed, call by call, as plain
// text; state is its journal.State. prefix is the command prefix in force
// (program name and connection flags), which the command it names for the
// whole list starts with; "" names none (the screen, which shows it).
func RenderAction(w io.Writer, a *journal.Action, state, prefix string) {
	h := a.Header
	fmt.Fprintf(w, "Action %s: %s\n", textsafe.Clean(h.ID), textsafe.Clean(h.Command))
	fmt.Fprintf(w, "  time %s, user %s, namespace %s on %s\n", h.Time.UTC().Format(time.RFC3339), textsafe.Clean(h.User), textsafe.Clean(h.Namespace), textsafe.Clean(h.Address))
	fmt.Fprintf(w, "  state: %s\n", textsafe.Clean(state))
	if a.End != nil && a.End.Result != "" {
		renderResult(w, a.End.Result)
	}
	if a.Damage != "" {
		fmt.Fprintf(w, "  journal damaged: %s\n", textsafe.Clean(a.Damage))
	}
	shown := 0
	for _, c := range a.Calls {
		outcome := "reply never read: may or may not have run"
		if c.Commit != nil && c.Commit.Error != "" {
			outcome = "failed: " + c.Commit.Error
		} else if c.Commit != nil {
			outcome = "ran"
			if c.Commit.Codes != "" {
				outcome += ", codes " + c.Commit.Codes
			}
		}
		fmt.Fprintf(w, "Call %d (%d items): %s\n", c.Seq, len(c.Intent.Items), textsafe.Clean(outcome))
		for _, it := range c.Intent.Items {
			if shown == HistoryItemLimit {
				break
			}
			shown++
			fmt.Fprintf(w, "  %s\n", textsafe.Clean(DescribeUndoItem(it)))
		}
	}
	if n := a.Items() - shown; n > 0 {
		if prefix == "" {
			fmt.Fprintf(w, "... and %d more items (history --json lists them all)\n", n)
		} else {
			fmt.Fprintf(w, "... and %d more items; this lists them all:\n  %s history --json %s\n", n, prefix, textsafe.Clean(h.ID))
		}
	}
}

// renderResult writes an action's result (its lines joined by "; " when
// it was recorded) one part a line, each cut to a bounded width, at most
// resultLines of them: a result that lists many items stays readable.
func renderResult(w io.Writer, result string) {
	parts := strings.Split(result, "; ")
	fmt.Fprintf(w, "  result: %s\n", textsafe.Cut(textsafe.Clean(parts[0]), resultWidth))
	for _, p := range parts[1:min(len(parts), resultLines)] {
		fmt.Fprintf(w, "    %s\n", textsafe.Cut(textsafe.Clean(p), resultWidth))
	}
	if n := len(parts) - resultLines; n > 0 {
		fmt.Fprintf(w, "    ... and %d more\n", n)
	}
}

// resultWidth bounds each line of a result: the text of an undo's item, the
// longest part, fits it.
const resultWidth = 160
