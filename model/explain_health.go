// Explain's causes from job health: a type failing now, starving for a
// slot, running on stuck workers, or waiting too long; each with the
// thresholds it was judged by (snap.Jobs, see AssessJobs).

package model

import (
	"fmt"

	"github.com/workq-tui/workq-tui/internal/shellword"
)

// Job health cause kinds.
const (
	CauseFailing  = "failing"
	CauseStarving = "starving"
	CauseStuck    = "stuck"
	CauseBacklog  = "backlog"
)

// healthProblem is job's problem of the kind in snap.Jobs, nil without.
func healthProblem(snap *Snapshot, job, kind string) *JobProblem {
	for _, p := range snap.Jobs.Of(job) {
		if p.Kind == kind {
			return &p
		}
	}
	return nil
}

func explainFailing(snap *Snapshot, jt *JobType) *Cause {
	p := healthProblem(snap, jt.Name, FindingFailing)
	if p == nil {
		return nil
	}
	return &Cause{Kind: CauseFailing, Verdict: fmt.Sprintf("%s is %s", jt.Name, p.Short),
		Evidence: []string{p.Detail},
		Fix:      append([]string{"jobs", "dead", "requeue", "--all"}, shellword.Flag("job", jt.Name)...),
		FixText:  "run it once the error is fixed: requeued before, the jobs fail again"}
}

// explainStarving is the starving problem when neither the saturated nor
// the workers_busy check already said why no slot is free.
func explainStarving(snap *Snapshot, jt *JobType, e *Explanation) *Cause {
	p := healthProblem(snap, jt.Name, FindingStarving)
	if p == nil {
		return nil
	}
	for _, c := range e.Causes {
		if c.Kind == CauseSaturated || c.Kind == CauseWorkersBusy {
			return nil
		}
	}
	return &Cause{Kind: CauseStarving, Verdict: fmt.Sprintf("%s is starving: no slot free for %s", jt.Name, FormatAge(p.Wait)),
		Evidence: []string{p.Detail},
		FixText:  "wait for the running jobs, start more workers that register " + jt.Name + ", or raise MaxConcurrency in the pools' JobOptions"}
}

func explainStuck(snap *Snapshot, jt *JobType) *Cause {
	p := healthProblem(snap, jt.Name, FindingStuck)
	if p == nil {
		return nil
	}
	return &Cause{Kind: CauseStuck, Verdict: fmt.Sprintf("%s of %s hold their slots while other jobs wait", p.Short, jt.Name),
		Evidence: []string{p.Detail},
		FixText:  "workq-tui cannot end a running handler: restart the stuck pools' processes; a pool that then stays dead is reaped and its jobs go back to their queues"}
}

func explainBacklog(snap *Snapshot, jt *JobType) *Cause {
	p := healthProblem(snap, jt.Name, FindingBacklog)
	if p == nil {
		return nil
	}
	return &Cause{Kind: CauseBacklog, Verdict: fmt.Sprintf("%s's oldest job has waited %s", jt.Name, FormatAge(p.Wait)),
		Evidence: []string{p.Detail},
		FixText:  "start more workers that register " + jt.Name + ", or find why its jobs run slowly"}
}

// pausedEvidence is the paused_backlog finding's words, "" without.
func pausedEvidence(snap *Snapshot, job string) string {
	if p := healthProblem(snap, job, FindingPausedBacklog); p != nil {
		return p.Detail
	}
	return ""
}
