package tui

// This file owns why a job type does not run, as the Job types view shows
// it: a mark on its row (BLOCKED, HELD, ORPHANED) and, under the list, one
// line for the row under the cursor. The causes are model.Explain's, the
// ones `workq-tui explain` prints, found from the snapshot and the last
// orphan scan alone; the line names the screen's key that removes them.

import (
	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// The marks of a job type's row, the worst first.
const (
	// markBlocked: the lock is at max_concurrency, no new job starts.
	markBlocked = "BLOCKED"
	// markHeld: jobs of the type sit in dead pools' in-progress lists.
	markHeld = "HELD"
	// markOrphaned: jobs of the type sit in orphaned in-progress lists.
	markOrphaned = "ORPHANED"
)

// jobBlock is why one job type is held back: the mark of its row and the
// line said when the cursor is on it.
type jobBlock struct {
	mark, reason string
}

// markOf is the mark of the causes Explain checks that hold a job type's
// jobs back; "" for the others (a pause has its own column).
func markOf(kind string) string {
	switch kind {
	case model.CauseDeadPoolLocks, model.CauseLockDrift, model.CauseSaturated:
		return markBlocked
	case model.CauseHeldDead:
		return markHeld
	case model.CauseOrphaned:
		return markOrphaned
	}
	return ""
}

// jobBlocks explains every job type of snap with the orphans of the last
// scan (nil: none has run, the snapshot's own), keeping those with a mark:
// model.Blocks, the causes of Explain that the snapshot alone shows, found
// in one pass over the pools. It runs at every poll, so it must not explain
// each job type from every pool (at 10,000 pools x 50 job types that took
// 30 ms and 30 MB a poll).
func jobBlocks(snap *model.Snapshot, orphans []model.InProgressList, k keyMap) map[string]jobBlock {
	if snap == nil {
		return nil
	}
	s := *snap
	if orphans != nil {
		s.Orphans = orphans
	}
	out := map[string]jobBlock{}
	for name, causes := range model.Blocks(&s) {
		out[name] = jobBlock{mark: markOf(causes[0].Kind), reason: blockReason(causes, k)}
	}
	return out
}

// blockReason is the line of the first cause, Explain's verdict (it
// names the job type and the numbers behind it), with the key that removes
// it, then how many more causes hold the type back: short enough for 80
// columns.
func blockReason(causes []model.Cause, k keyMap) string {
	c := causes[0]
	text := textsafe.Clean(c.Verdict)
	if fix := blockFix(c, k); fix != "" {
		text += ": " + fix
	}
	if n := len(causes) - 1; n > 0 {
		text += " (+" + plural(n, "more cause", "more causes") + ")"
	}
	return text
}

// blockFix is what the operator presses to remove cause c, "" when no
// write of the screen does.
func blockFix(c model.Cause, k keyMap) string {
	switch c.Kind {
	case model.CauseDeadPoolLocks, model.CauseHeldDead:
		return k.get(actions.ReapAll).Help().Key + " reaps them"
	case model.CauseLockDrift:
		return k.get(actions.RepairLocks).Help().Key + " repairs it once marked DRIFT"
	case model.CauseOrphaned:
		return k.get(actions.Requeue).Help().Key + " in Orphans requeues them"
	}
	return ""
}
