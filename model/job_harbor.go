package model

import (
	"bytes"
	"encoding/json"
)

// harborPeriodicArg is the argument Harbor's job service sets on the runs
// of a periodic policy, which it enqueues into scheduled itself (its id is
// the policy's).
const harborPeriodicArg = "_job_kind_periodic_"

// HarborPeriodic reports a run of a Harbor periodic policy (args
// `"_job_kind_periodic_": true`): Harbor writes the policy's next run into
// scheduled again, as gocraft/work's periodic enqueuer does its own.
func (j *JobFields) HarborPeriodic() bool {
	if len(j.Args) == 0 || !bytes.Contains(j.Args, []byte(harborPeriodicArg)) {
		return false
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(j.Args, &args) != nil {
		return false
	}
	return bytes.Equal(bytes.TrimSpace(args[harborPeriodicArg]), []byte("true"))
}
