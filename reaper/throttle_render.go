package reaper

import (
	"fmt"
	"io"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// capText is a max_concurrency value in words.
func capText(n int64) string {
	if n <= 0 {
		return "0 (no cap)"
	}
	return fmt.Sprint(n)
}

// ThrottleEffect is what a throttle means for the job type's workers, in
// one line: the line the screen's dialog and `throttle --dry-run` show.
func ThrottleEffect(p ThrottlePlan) string {
	name := textsafe.Clean(p.Name)
	if p.New <= 0 {
		return fmt.Sprintf("workers take %s jobs with no cap across all pools; %d queued", name, p.Queued)
	}
	finish := "new jobs start at once"
	switch f := p.Finish(); {
	case f == 1:
		finish = "1 running job finishes before a new one starts"
	case f > 1:
		finish = fmt.Sprintf("%d running jobs finish before a new one starts", f)
	case p.Lock >= p.New:
		finish = "a running job finishes before a new one starts"
	}
	return fmt.Sprintf("at most %d %s jobs run at once across all pools; %s", p.New, name, finish)
}

// RenderThrottlePlan writes a throttle plan as plain text: the cap now and
// after, the lock now, what that means for running jobs, and that the next
// pool start writes the pools' own setting back. It is what `throttle
// --dry-run` prints and the screen's dialog shows.
func RenderThrottlePlan(w io.Writer, p ThrottlePlan) {
	fmt.Fprintf(w, "Throttle plan for namespace %s:\n", textsafe.Clean(p.Namespace))
	name := textsafe.Clean(p.Name)
	fmt.Fprintf(w, "  %s: max_concurrency now %s, after %s; lock now %d (%d in progress, %d queued)\n",
		name, capText(p.Before), capText(p.New), p.Lock, p.InProgress, p.Queued)
	if th := p.Throttled; th != nil {
		fmt.Fprintf(w, "  %s: %s\n", name, textsafe.Clean(th.Text()))
	}
	if !p.Changes() {
		fmt.Fprintf(w, "  %s: max_concurrency is %s already: nothing to do\n", name, capText(p.New))
		return
	}
	fmt.Fprintf(w, "  %s\n", ThrottleEffect(p))
	fmt.Fprintf(w, "    SET %s %d\n", textsafe.Clean(p.Key), p.New)
	fmt.Fprintln(w)
	switch len(p.Pools) {
	case 0:
		fmt.Fprintf(w, "No live pool names %s now: the next pool to start with it writes its own setting.\n", name)
	default:
		fmt.Fprintf(w, "%s name %s; each writes its own MaxConcurrency (its JobOptions, not in Redis) when it next starts, which ends this throttle.\n",
			model.Plural(len(p.Pools), "live pool", "live pools"), name)
	}
	if p.Reset {
		fmt.Fprintln(w, "0 is what pools started without MaxConcurrency write; no journalled throttle says the pools wrote another cap, and where they set one it comes back at their next start.")
	}
	fmt.Fprintln(w, "The value is re-checked when written: if it changed since this plan, nothing is written.")
}

// RenderThrottleResult writes what a throttle did.
func RenderThrottleResult(w io.Writer, r ThrottleResult) {
	name := textsafe.Clean(r.Name)
	before := r.Before
	if before == "" {
		before = "absent"
	}
	switch r.Status {
	case ThrottleDone:
		fmt.Fprintf(w, "%s: max_concurrency set to %d (was %s)\n", name, r.New, textsafe.Clean(before))
	case ThrottleAlready:
		fmt.Fprintf(w, "%s: max_concurrency was %d already\n", name, r.New)
	case ThrottleMoved:
		fmt.Fprintf(w, "%s: not changed: max_concurrency is %s now, not what the plan saw\n", name, textsafe.Clean(before))
	case ThrottleRefused:
		fmt.Fprintf(w, "%s: refused (%s is a %s)\n", name, textsafe.Clean(r.Key), textsafe.Clean(r.Before))
	default:
		fmt.Fprintf(w, "%s: not changed\n", name)
	}
}
