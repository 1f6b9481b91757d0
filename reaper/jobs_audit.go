// The audit log's words for a job action, one vocabulary for the command
// line and the screen, so that one grep finds an action whichever ran it.

package reaper

import "fmt"

// JobsAuditAction is the audit log's name of a job action: "jobs-requeue"
// or "jobs-delete", whether it took set members or a job of a queue.
func JobsAuditAction(a JobsAction) string { return "jobs-" + string(a) }

// JobsAuditRefs is how many of the jobs given one by one an audit line
// names; the rest are counted ("and 5 more").
const JobsAuditRefs = 20

// JobsAuditTargets names what a job action takes, for the audit line's
// targets: "set=dead" (or "queue=NAME" for a queue delete), then "all" and
// "job=NAME" and "where=QUERY" for a bulk action, or the jobs one by one (JobRef.String).
// Values go into the line as they are: the audit log quotes what needs it.
func JobsAuditTargets(t JobsTarget) []string {
	out := []string{"set=" + string(t.Set)}
	if t.Set == "" {
		out = []string{"queue=" + t.Queue}
	}
	if t.All {
		out = append(out, "all")
		if t.Job != "" {
			out = append(out, "job="+t.Job)
		}
		if !t.Query.Empty() {
			out = append(out, "where="+t.Query.Text)
		}
		return out
	}
	for i, r := range t.Refs {
		if i == JobsAuditRefs {
			return append(out, fmt.Sprintf("and %d more", len(t.Refs)-i))
		}
		out = append(out, r.String())
	}
	return out
}
