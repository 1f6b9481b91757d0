package reaper

import "fmt"

// harborPeriodicWarning is the warning of a delete or run-now of n runs of
// Harbor periodic policies (model.JobFields.HarborPeriodic).
func harborPeriodicWarning(n int, action JobsAction) string {
	what := "deleted"
	if action == JobsRequeue {
		what = "run now"
	}
	return fmt.Sprintf("%d Harbor periodic run(s) (args _job_kind_periodic_): Harbor's job service writes each policy's next run into scheduled again from its period:policies, so what is %s may come back", n, what)
}
