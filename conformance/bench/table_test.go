package bench_test

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// line is one line of the table: a ratio measured in this run, its goal and
// whether it meets it.
type line struct {
	id     string
	what   string
	ratio  float64
	goal   string // "<= 1.30x", ">= 20x", "" for information
	ok     bool
	detail string
}

type table struct {
	header []string
	lines  []line
}

// atMost adds a line whose ratio must be at most goal.
func (t *table) atMost(id, what string, ratio, goal float64, detail string) {
	t.lines = append(t.lines, line{id: id, what: what, ratio: ratio, goal: fmt.Sprintf("<= %s", fmtRatio(goal)), ok: ratio <= goal, detail: detail})
}

// atLeast adds a line whose ratio must be at least goal.
func (t *table) atLeast(id, what string, ratio, goal float64, detail string) {
	t.lines = append(t.lines, line{id: id, what: what, ratio: ratio, goal: fmt.Sprintf(">= %s", fmtRatio(goal)), ok: ratio >= goal, detail: detail})
}

// info adds a line without a goal.
func (t *table) info(id, what string, ratio float64, detail string) {
	t.lines = append(t.lines, line{id: id, what: what, ratio: ratio, ok: true, detail: detail})
}

func fmtRatio(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0fx", r)
	case r >= 10:
		return fmt.Sprintf("%.1fx", r)
	default:
		return fmt.Sprintf("%.2fx", r)
	}
}

func (t *table) missed() []string {
	var out []string
	for _, l := range t.lines {
		if !l.ok {
			out = append(out, l.id+" "+l.what)
		}
	}
	return out
}

func (t *table) write(w io.Writer) {
	for _, h := range t.header {
		fmt.Fprintln(w, h)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tmeasure\tratio\tgoal\tresult\tdetail")
	for _, l := range t.lines {
		res := "PASS"
		switch {
		case l.goal == "":
			res = "info"
		case !l.ok:
			res = "MISS"
		}
		goal := l.goal
		if goal == "" {
			goal = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.id, l.what, fmtRatio(l.ratio), goal, res, l.detail)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(w, "table: %v\n", err)
	}
	if m := t.missed(); len(m) > 0 {
		fmt.Fprintf(w, "%d goal(s) missed\n", len(m))
	} else {
		fmt.Fprintln(w, "every goal met")
	}
}

// machine describes where the table was measured.
func machine() string {
	cpu := "unknown cpu"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d CPUs (%s), %s/%s, %s, %s", runtime.NumCPU(), cpu, runtime.GOOS, runtime.GOARCH, runtime.Version(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"))
}

// median of samples (durations, counts), which are sorted in place.
func median[T cmp.Ordered](d []T) T {
	if len(d) == 0 {
		var zero T
		return zero
	}
	slices.Sort(d)
	return d[len(d)/2]
}

func ms(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
}
