package reaper

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	textable "github.com/workq-tui/workq-tui/internal/table"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// RenderJobsPlan writes a job action's plan as plain text: what it takes,
// per job name, the first jobs, what it leaves alone and the warnings. It
// is what --dry-run prints and what the screen's dialog shows.
func RenderJobsPlan(w io.Writer, p JobsPlan) {
	where := string(p.Target.Set)
	if where == "" {
		where = "queue " + textsafe.Clean(p.Target.Queue)
	}
	what := string(p.Action)
	if p.Action == JobsRequeue {
		switch p.Target.Set {
		case model.SetDead:
			what = "requeue (t = now; fails, err and failed_at dropped; pushed to the back of the queue)"
		default:
			what = "run now (t = now; fails, err and failed_at kept; pushed to the back of the queue)"
		}
	}
	scope := "the jobs given"
	if p.Target.All {
		scope = "every job"
		if p.Target.Job != "" {
			scope = "every " + textsafe.Clean(p.Target.Job) + " job"
		}
		if !p.Target.Query.Empty() {
			scope += " matching " + textsafe.Clean(p.Target.Query.Text)
		}
	}
	fmt.Fprintf(w, "Plan for namespace %s (Redis time %s): %s, %s in %s.\n",
		textsafe.Clean(p.Namespace), p.RedisTime.UTC().Format(time.RFC3339), what, scope, where)
	bulk := p.Target.All && p.Matched.Sum != nil && p.Matched.Sum.Members > 0
	if bulk {
		renderBulkSummary(w, p)
	}
	if p.Total == 0 {
		fmt.Fprintln(w, "Nothing to do.")
	} else {
		if !bulk {
			tb := textable.New(2)
			tb.Row("  job name", "jobs")
			for _, c := range model.Sorted(p.ByName) {
				tb.Row("  "+textsafe.Clean(c.Key), strconv.FormatInt(c.N, 10))
			}
			if n := p.Total - sumCounts(p.ByName); n > 0 {
				tb.Row("  (not JSON)", strconv.FormatInt(n, 10))
			}
			_, _ = tb.WriteTo(w)
		}
		if len(p.Items) > 0 {
			fmt.Fprintln(w, "First jobs:")
			for _, it := range p.Items[:min(len(p.Items), SampleSize)] {
				fmt.Fprintf(w, "  %s\n", describeItem(it))
			}
		}
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "Left alone: %s (%s).\n", model.Plural(s.N, "job", "jobs"), s.Reason)
	}
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "Warning: %s.\n", textsafe.Clean(warn))
	}
	fmt.Fprintf(w, "Total: %s. Each job is re-checked when it is moved: one that left the set meanwhile is reported, not touched.\n", model.Plural(p.Total, "job", "jobs"))
}

func describeItem(it JobItem) string {
	sj := it.Job
	at := sj.ScoreText
	switch {
	case sj.ScoreText == "":
		// A bulk plan's walk read the job; it left the set before its score
		// was read.
		at = "gone since it was read"
	case sj.Set != "":
		at = sj.Set.ScoreField() + " " + scoreTime(sj)
	}
	if sj.Job == nil {
		return fmt.Sprintf("%s  raw %s", at, textsafe.Clean(truncateBytes(sj.Raw, 60)))
	}
	line := fmt.Sprintf("%s  %s  %s", textsafe.Clean(sj.Job.ID), textsafe.Clean(sj.Job.Name), at)
	if sj.Job.LastErr != "" {
		line += "  err " + textsafe.Clean(truncateBytes([]byte(sj.Job.LastErr), 60))
	}
	if it.UniqueKey != "" {
		line += "  (unique)"
	}
	return line
}

// scoreTime is a score as an RFC 3339 time, or as Redis wrote it when it
// is not a whole second RFC 3339 can write.
func scoreTime(sj model.SetJob) string {
	sec := model.ScoreSeconds(sj.Score)
	if sj.Score != float64(sec) || sec < model.MinQuerySecond || sec > model.MaxQuerySecond {
		return sj.ScoreText
	}
	return time.Unix(sec, 0).UTC().Format(time.RFC3339)
}

func sumCounts(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// RenderJobsResult writes what a job action did.
func RenderJobsResult(w io.Writer, action JobsAction, r JobsResult) {
	names := make([]string, 0, len(r.ByName))
	for n := range r.ByName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %s: %d\n", textsafe.Clean(n), r.ByName[n])
	}
	verb := "requeued"
	if action == JobsDelete {
		verb = "deleted"
	}
	line := fmt.Sprintf("Done: %s %s", model.Plural(r.Done, "job", "jobs"), verb)
	if r.UniqueDeleted > 0 {
		line += fmt.Sprintf(", %s deleted", model.Plural(r.UniqueDeleted, "unique key", "unique keys"))
	}
	fmt.Fprintln(w, line+".")
	report := func(n int64, list []model.SetJob, why string) {
		if n == 0 {
			return
		}
		ids := make([]string, 0, len(list))
		for _, sj := range list {
			ids = append(ids, textsafe.Clean(describeMember(sj)))
		}
		more := ""
		if int64(len(list)) < n {
			more = ", ..."
		}
		fmt.Fprintf(w, "Not touched: %s %s: %s%s\n", model.Plural(n, "job", "jobs"), why, strings.Join(ids, ", "), more)
	}
	report(r.GoneCount, r.Gone, "had left since the plan was made")
	report(r.RescoredCount, r.Rescored, "had a new score since the plan was made")
	keys := make([]string, 0, len(r.Skipped))
	for k := range r.Skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "Left alone: %s (%s).\n", model.Plural(r.Skipped[k], "job", "jobs"), k)
	}
}

// JobsAuditLine is one line for the audit log: the action, its target and
// what it did, with text from Redis cleaned.
func JobsAuditLine(p JobsPlan, r JobsResult) string {
	where := "set=" + string(p.Target.Set)
	if p.Target.Set == "" {
		where = "queue=" + textsafe.Clean(p.Target.Queue)
	}
	scope := fmt.Sprintf("ids=%d", len(p.Target.Refs))
	if p.Target.All {
		scope = "all"
		if p.Target.Job != "" {
			scope += " job=" + textsafe.Clean(p.Target.Job)
		}
		if !p.Target.Query.Empty() {
			scope += " where=" + strconv.Quote(textsafe.Clean(p.Target.Query.Text))
		}
	}
	return fmt.Sprintf("jobs %s namespace=%s %s %s force=%v planned=%d done=%d gone=%d rescored=%d unique_deleted=%d",
		p.Action, textsafe.Clean(p.Namespace), where, scope, p.Target.Force, p.Total, r.Done, r.GoneCount, r.RescoredCount, r.UniqueDeleted)
}
