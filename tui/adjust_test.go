package tui

import (
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// TestAdjustSnapshot: a poll's snapshot is shown as is when the screen's
// cut-off and the sweep's drift change nothing; otherwise a copy carries
// them, the poll's snapshot untouched.
func TestAdjustSnapshot(t *testing.T) {
	snap := workersFixture()
	own := map[string]model.Finding{} // the drift the poll saw itself
	for _, f := range snap.Findings {
		if f.Kind == model.FindingDrift {
			own[f.Subject] = f
		}
	}
	if got := adjustSnapshot(snap, 0, nil); got != snap {
		t.Error("nothing to change, but a copy is shown")
	}
	if got := adjustSnapshot(snap, snap.LongAfter, own); got != snap {
		t.Error("the same cut-off and the same drift, but a copy is shown")
	}
	before := len(snap.Findings)
	job := ""
	for _, jt := range snap.JobTypes {
		if !jt.Drift {
			job = jt.Name
		}
	}
	if job == "" {
		t.Fatal("the fixture has no job type without drift")
	}
	own[job] = model.Finding{Kind: model.FindingDrift, Subject: job, Detail: "as the sweep saw it"}
	sweep := own[job]
	got := adjustSnapshot(snap, time.Minute, own)
	drifted := func(s *model.Snapshot) bool {
		for _, jt := range s.JobTypes {
			if jt.Name == job {
				return jt.Drift
			}
		}
		return false
	}
	if got == snap || !drifted(got) || got.LongAfter != time.Minute {
		t.Fatalf("drift and cut-off not applied: %+v", got.JobTypes)
	}
	found := false
	for _, f := range got.Findings {
		if f.Kind == model.FindingDrift && f.Subject == job {
			found = f.Detail == sweep.Detail
		}
	}
	if !found {
		t.Errorf("the sweep's drift finding is not shown: %+v", got.Findings)
	}
	if drifted(snap) || len(snap.Findings) != before || snap.LongAfter == time.Minute {
		t.Error("the poll's snapshot was changed")
	}
}
