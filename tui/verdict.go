package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/workq-tui/workq-tui/model"
)

// healthVerdict is the header's word on the namespace: "healthy", or the
// problems counted by kind ("3 problems: 2 dead pools, 1 drift"; the job
// health's as one count: "2 job problems"). It
// counts the findings that make `workq-tui snapshot` exit non-zero
// (model.Snapshot.HasProblems), no others, so the screen and a cron check
// never disagree.
func healthVerdict(findings []model.Finding) (text string, problems bool) {
	kinds := []struct {
		kind        string
		one, plural string
	}{
		{model.FindingEmptyNamespace, "empty namespace", "empty namespaces"},
		{model.FindingOtherLayout, "namespace of another layout", "namespaces of another layout"},
		{model.FindingDeadPool, "dead pool", "dead pools"},
		{model.FindingDrift, "drift", "drifts"},
		{model.FindingOrphan, "orphaned list", "orphaned lists"},
	}
	// The job health problems are counted as one: the line above the
	// verdict names them.
	jobKinds := map[string]bool{}
	for _, k := range model.JobHealthKinds {
		jobKinds[k] = true
	}
	n := map[string]int{}
	jobs := 0
	for _, f := range findings {
		n[f.Kind]++
		if jobKinds[f.Kind] {
			jobs++
		}
	}
	var parts []string
	total := 0
	for _, k := range kinds {
		if c := n[k.kind]; c > 0 {
			parts = append(parts, plural(c, k.one, k.plural))
			total += c
		}
	}
	if jobs > 0 {
		parts = append(parts, plural(jobs, "job problem", "job problems"))
		total += jobs
	}
	if total == 0 {
		return "healthy", false
	}
	if total == jobs {
		return plural(jobs, "job problem", "job problems"), true
	}
	return fmt.Sprintf("%s: %s", plural(total, "problem", "problems"), strings.Join(parts, ", ")), true
}

// verdictSegment is the verdict styled for the header: red with its
// problems, green when healthy. The polls do not look for orphans (the
// screen's own paced scan does, as snapshot does): the orphans of the
// last scan count as the findings snapshot would give for them.
// short leaves the count alone ("✖ 9 problems"): the counts line under it
// names the kinds, and the line above the job health problems.
func verdictSegment(snap *model.Snapshot, orphans []model.InProgressList, short bool, st styles) string {
	findings := snap.Findings
	if len(orphans) > 0 && !slices.ContainsFunc(findings, func(f model.Finding) bool { return f.Kind == model.FindingOrphan }) {
		findings = slices.Clone(findings)
		for _, o := range orphans {
			findings = append(findings, model.Finding{Kind: model.FindingOrphan, Subject: o.Key})
		}
	}
	text, bad := healthVerdict(findings)
	if short {
		text, _, _ = strings.Cut(text, ":")
	}
	if bad {
		return st.dead.Render("✖ " + text)
	}
	return st.ok.Render("✔ " + text)
}
