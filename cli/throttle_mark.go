package cli

// This file owns marking throttled job types in what the read commands
// print: the journal beside the audit log says who capped a job type and
// when (reaper.MarkThrottled), as long as Redis still holds that cap.

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// addJournalFlag adds --audit-log to a command that only reads: the audit
// log whose journal records the throttles it marks.
func (a *auditFlag) addJournalFlag(fs *pflag.FlagSet) {
	fs.StringVar(&a.path, "audit-log", "", "mark job types throttled by the actions in the journal beside `FILE` (default: the user's state directory)")
}

// markThrottled marks snap's throttled job types from the journal of a. A
// journal that cannot be found or read marks nothing and says so among
// the snapshot's warnings: the read goes on.
func markThrottled(e env, a auditFlag, t *target, snap *model.Snapshot) {
	dir, err := a.journalDir(e)
	if err != nil {
		return // no home and no --audit-log: there is no journal to read
	}
	actions, err := reaper.ThrottleActions(dir, snap.Namespace, t.address())
	if err != nil {
		snap.Warnings = append(snap.Warnings, fmt.Sprintf("throttles not marked: %v", err))
		return
	}
	reaper.MarkThrottled(snap, actions, t.address())
}
