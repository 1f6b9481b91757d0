package tui

// This file owns the job health in the Job types view: the WHY mark of a
// type with a job health problem and no other mark (FAILING, BACKLOG,
// STARVING, STUCK, PAUSED, NO POOL), the reason line under the list (the
// problem's evidence with its thresholds), and the failure rate column.
// The health is the reader's, judged once per poll (model.Snapshot.Jobs).

import (
	"fmt"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// The job health marks.
const (
	markFailing  = "FAILING"
	markBacklog  = "BACKLOG"
	markStarving = "STARVING"
	markStuck    = "STUCK"
	markPaused   = "PAUSED"
	markNoPool   = "NO POOL"
)

func healthMark(kind string) string {
	switch kind {
	case model.FindingFailing:
		return markFailing
	case model.FindingBacklog:
		return markBacklog
	case model.FindingStarving:
		return markStarving
	case model.FindingStuck:
		return markStuck
	case model.FindingPausedBacklog:
		return markPaused
	case model.FindingUnserved:
		return markNoPool
	}
	return ""
}

// withHealthMarks is blocks with, for each job type that has none, the
// mark and the reason of its worst job health problem, else PAUSED for a
// paused type (so that WHY says it when a narrow screen has no PAUSED
// column); a failing type is FAILING whatever else holds it back (the
// reason line names the other mark too): its jobs die now. blocks is not
// changed.
func withHealthMarks(blocks map[string]jobBlock, snap *model.Snapshot) map[string]jobBlock {
	if snap == nil {
		return blocks
	}
	out := make(map[string]jobBlock, len(blocks))
	for k, b := range blocks {
		out[k] = b
	}
	defer func() {
		for _, jt := range snap.JobTypes {
			if _, ok := out[jt.Name]; !ok && jt.Paused {
				out[jt.Name] = jobBlock{mark: markPaused, reason: textsafe.Clean(fmt.Sprintf("%s is paused, %d queued", jt.Name, jt.Queued))}
			}
		}
	}()
	if snap.Jobs == nil {
		return out
	}
	// The problems come worst first: the first of a type is its mark.
	for _, p := range snap.Jobs.Problems {
		reason := textsafe.Clean(p.Job + ": " + p.Detail)
		if b, ok := out[p.Job]; ok {
			if p.Kind != model.FindingFailing || b.mark == markFailing {
				continue
			}
			reason = textsafe.Clean(p.Job+": "+p.Short) + "; also " + b.mark + ": " + b.reason
		}
		out[p.Job] = jobBlock{mark: healthMark(p.Kind), reason: reason}
	}
	return out
}

// failRateCell is a job type's failures a minute over the window, "-"
// when it failed in neither the window nor the baseline (or the health
// was not judged).
func failRateCell(snap *model.Snapshot, job string) string {
	if snap == nil || snap.Jobs == nil {
		return "-"
	}
	r, ok := snap.Jobs.Rates[job]
	if !ok {
		return "-"
	}
	return model.FormatRate(r.FailRate)
}
