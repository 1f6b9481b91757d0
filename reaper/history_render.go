package reaper

import (
	"fmt"
	"io"
	"time"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// HistoryItemLimit bounds the items RenderAction lists.
const HistoryItemLimit = 200

// RenderAction writes what an action changed, call by call, as plain
// text; state is its journal.State.
func RenderAction(w io.Writer, a *journal.Action, state string) {
	h := a.Header
	fmt.Fprintf(w, "Action %s: %s\n", textsafe.Clean(h.ID), textsafe.Clean(h.Command))
	fmt.Fprintf(w, "  time %s, user %s, namespace %s on %s\n", h.Time.UTC().Format(time.RFC3339), textsafe.Clean(h.User), textsafe.Clean(h.Namespace), textsafe.Clean(h.Address))
	fmt.Fprintf(w, "  state: %s\n", textsafe.Clean(state))
	if a.End != nil && a.End.Result != "" {
		fmt.Fprintf(w, "  result: %s\n", textsafe.Clean(a.End.Result))
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
		fmt.Fprintf(w, "... and %d more items (`workq-tui history --json %s` lists them all)\n", n, textsafe.Clean(h.ID))
	}
}
