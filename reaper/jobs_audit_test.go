package reaper

import (
	"reflect"
	"testing"
)

func TestJobsAuditTargets(t *testing.T) {
	many := make([]JobRef, JobsAuditRefs+3)
	for i := range many {
		many[i] = JobRef{ID: "j"}
	}
	wantMany := []string{"set=dead"}
	for range JobsAuditRefs {
		wantMany = append(wantMany, "j")
	}
	wantMany = append(wantMany, "and 3 more")
	for _, tc := range []struct {
		name string
		t    JobsTarget
		want []string
	}{
		{"bulk of one type", JobsTarget{Set: "dead", All: true, Job: "mail"}, []string{"set=dead", "all", "job=mail"}},
		{"bulk", JobsTarget{Set: "retry", All: true}, []string{"set=retry", "all"}},
		{"one by one", JobsTarget{Set: "dead", Refs: []JobRef{{ID: "a", Score: "12"}, {ID: "b"}}}, []string{"set=dead", "a@12", "b"}},
		{"queue", JobsTarget{Queue: "mail", Refs: []JobRef{{ID: "q1"}}}, []string{"queue=mail", "q1"}},
		{"many", JobsTarget{Set: "dead", Refs: many}, wantMany},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := JobsAuditTargets(tc.t); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if JobsAuditAction(JobsRequeue) != "jobs-requeue" || JobsAuditAction(JobsDelete) != "jobs-delete" {
		t.Errorf("actions %q, %q", JobsAuditAction(JobsRequeue), JobsAuditAction(JobsDelete))
	}
}
