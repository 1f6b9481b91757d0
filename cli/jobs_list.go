package cli

// This file owns the reads of the jobs command: a page of a job set and its
// summary by job type and error, as text or JSON.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/workq-tui/workq-tui/internal/table"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// list prints a page or the summary of a set.
func (c *jobsCmd) list(ctx context.Context, e env, op jobsOp) error {
	conn, done, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer done()
	keys := redisq.NewKeys(c.namespace)
	filter := redisq.SetFilter{Job: c.job, Error: c.errText}
	if !c.query.Empty() {
		filter.Query = c.query
	}
	if c.summary {
		so := redisq.ScanOptions{Progress: scanProgressPrinter(e.stderr)}
		sum, err := redisq.SummarizeSet(ctx, conn, keys, op.set, filter, so)
		if err != nil {
			return err
		}
		if c.json {
			return writeJobsJSON(e.stdout, summaryToJSON(sum))
		}
		return writeJobsSummary(e.stdout, sum, c.wide)
	}
	o := redisq.PageOptions{Offset: c.offset, Limit: c.limit}
	var page redisq.SetPage
	if filter.Empty() {
		page, err = redisq.ReadSetPage(ctx, conn, keys, op.set, o)
	} else {
		page, err = redisq.FilterSetPage(ctx, conn, keys, op.set, filter, o, redisq.ScanOptions{})
	}
	if err != nil {
		return err
	}
	if c.json {
		return writeJobsPageJSON(e.stdout, jobsPageJSON{Set: page.Set, Count: page.Total, Offset: page.Offset, Limit: c.limit, Jobs: page.Jobs})
	}
	return writeJobsPage(e.stdout, page, filter, c.wide)
}

// scanProgressPrinter reports a summary's scan on w at most every tenth of
// the set's size.
func scanProgressPrinter(w io.Writer) func(redisq.SetScanProgress) {
	last := int64(0)
	return func(p redisq.SetScanProgress) {
		if p.Done || p.Size <= 0 {
			return
		}
		tenth := min(p.Seen*10/p.Size, 9)
		if tenth <= last {
			return
		}
		last = tenth
		fmt.Fprintf(w, "scanned %d of about %d members\n", p.Seen, p.Size)
	}
}

// jobsPageJSON is a page as --json prints it (writeJobsPageJSON); each job
// as model.SetJob writes it (the score field named as gocraft/work's Client names it, then
// the job's fields, args byte for byte; raw and problem for a member that
// is not a job).
type jobsPageJSON struct {
	Set    model.SetName `json:"set"`
	Count  int64         `json:"count"`
	Offset int           `json:"offset"`
	Limit  int           `json:"limit"`
	Jobs   []model.SetJob
}

// jobsSummaryJSON is a summary as --json prints it.
type jobsSummaryJSON struct {
	Set     model.SetName   `json:"set"`
	Members int64           `json:"members"`
	NotJobs int64           `json:"not_jobs"`
	ByName  []nameCountJSON `json:"by_name"`
	ByError []errCountJSON  `json:"by_error"`
}

type nameCountJSON struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

type errCountJSON struct {
	Error   string `json:"error"`
	Example string `json:"example"`
	Count   int64  `json:"count"`
}

func summaryToJSON(s *model.SetSummary) jobsSummaryJSON {
	out := jobsSummaryJSON{Set: s.Set, Members: s.Members, NotJobs: s.NotJobs, ByName: []nameCountJSON{}, ByError: []errCountJSON{}}
	for _, c := range model.Sorted(s.ByName) {
		out.ByName = append(out.ByName, nameCountJSON{c.Key, c.N})
	}
	for _, c := range model.Sorted(s.ByError) {
		out.ByError = append(out.ByError, errCountJSON{c.Key, s.ErrorExample[c.Key], c.N})
	}
	return out
}

// writeJobsJSON prints v as indented JSON and a newline, with every rune a
// terminal would act on escaped (escapeTerminalRunes).
func writeJobsJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return localErrorf("encode JSON: %w", err)
	}
	_, err = w.Write(append(escapeTerminalRunes(nil, b), '\n'))
	return err
}

// writeJobsPageJSON prints a page as indented JSON with one job per line,
// each written by model.SetJob.MarshalJSON directly: encoding/json would
// re-indent (or compact) the args, which are the stored bytes.
func writeJobsPageJSON(w io.Writer, p jobsPageJSON) error {
	head, err := json.MarshalIndent(struct {
		Set    model.SetName `json:"set"`
		Count  int64         `json:"count"`
		Offset int           `json:"offset"`
		Limit  int           `json:"limit"`
	}{p.Set, p.Count, p.Offset, p.Limit}, "", "  ")
	if err != nil {
		return localErrorf("encode JSON: %w", err)
	}
	b := append(append([]byte{}, head[:len(head)-2]...), ",\n  \"jobs\": ["...)
	for i, sj := range p.Jobs {
		js, err := sj.MarshalJSON()
		if err != nil {
			return localErrorf("encode JSON: %w", err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, "\n    "...), js...)
	}
	if len(p.Jobs) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "]\n}\n"...)
	_, err = w.Write(escapeTerminalRunes(nil, b))
	return err
}

// writeJobsPage prints a page as a table. Every text from Redis goes
// through textsafe.Clean; columns line up by display width.
func writeJobsPage(w io.Writer, p redisq.SetPage, f redisq.SetFilter, wide bool) error {
	order := "soonest first"
	if p.Set.NewestFirst() {
		order = "most recent first"
	}
	what := "jobs"
	if !f.Empty() {
		what = "matching jobs"
	}
	head := fmt.Sprintf("%s: %s", p.Set, jobsPlural(p.Total, "job"))
	if !f.Empty() {
		head = fmt.Sprintf("%s: %d %s", p.Set, p.Total, what)
	}
	if len(p.Jobs) == 0 {
		_, err := fmt.Fprintf(w, "%s; none at offset %d.\n", head, p.Offset)
		return err
	}
	if !wide {
		order += " (--wide: args, errors whole)"
	}
	if _, err := fmt.Fprintf(w, "%s; %d-%d, %s\n", head, p.Offset+1, p.Offset+len(p.Jobs), order); err != nil {
		return err
	}
	c := textsafe.Clean
	// The cells but the error and the args; ids stay whole (they are what
	// requeue and delete take).
	type row struct{ at, id, name, fails, err, args string }
	rows := make([]row, 0, len(p.Jobs))
	nameW := 14
	if wide {
		nameW = 1 << 20
	}
	for _, sj := range p.Jobs {
		at := scoreCell(sj)
		if sj.Job == nil {
			rows = append(rows, row{at, "-", "(not a job)", "-", c(sj.Problem), "raw " + c(string(sj.Raw))})
			continue
		}
		j := sj.Job
		args := "null"
		if len(j.Args) > 0 {
			args = string(j.Args)
		}
		if j.Unique {
			args += " (unique)"
		}
		errText := "-"
		if j.LastErr != "" {
			errText = c(j.LastErr)
		}
		rows = append(rows, row{at, c(j.ID), textsafe.Cut(c(j.Name), nameW), strconv.FormatInt(j.Fails, 10), errText, c(args)})
	}
	// Without --wide the error takes what 80 columns leave, and the args
	// are left out.
	errW := 40
	if !wide {
		used := 0
		for i, title := range []string{p.Set.ScoreField(), "ID", "NAME", "FAILS"} {
			width := textsafe.Width(title)
			for _, r := range rows {
				width = max(width, textsafe.Width([]string{r.at, r.id, r.name, r.fails}[i]))
			}
			used += width + 2
		}
		errW = max(80-used, 3)
	}
	t := table.New(2)
	if wide {
		t.Row(p.Set.ScoreField(), "ID", "NAME", "FAILS", "ERR", "ARGS")
	} else {
		t.Row(p.Set.ScoreField(), "ID", "NAME", "FAILS", "ERR")
	}
	for _, r := range rows {
		if wide {
			t.Row(r.at, r.id, r.name, r.fails, r.err, r.args)
			continue
		}
		t.Row(r.at, r.id, r.name, r.fails, textsafe.Cut(r.err, errW))
	}
	_, err := t.WriteTo(w)
	return err
}

// scoreCell is a score as a UTC time; a fractional or odd score as Redis
// wrote it.
func scoreCell(sj model.SetJob) string {
	n, err := strconv.ParseInt(sj.ScoreText, 10, 64)
	if err != nil || n < 0 || n > 1e11 {
		return textsafe.Clean(sj.ScoreText)
	}
	return time.Unix(n, 0).UTC().Format("2006-01-02 15:04:05")
}

// writeJobsSummary prints the counts by job type and by error.
func writeJobsSummary(w io.Writer, s *model.SetSummary, wide bool) error {
	c := textsafe.Clean
	if _, err := fmt.Fprintf(w, "%s: %s counted\n", s.Set, jobsPlural(s.Members, "member")); err != nil {
		return err
	}
	if s.Members == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nBY JOB TYPE")
	t := table.New(2)
	t.Row("JOBS", "NAME")
	for _, n := range model.Sorted(s.ByName) {
		t.Row(strconv.FormatInt(n.N, 10), c(n.Key))
	}
	if s.NotJobs > 0 {
		t.Row(strconv.FormatInt(s.NotJobs, 10), "(not a job)")
	}
	if _, err := t.WriteTo(w); err != nil {
		return err
	}
	if len(s.ByError) == 0 {
		return nil
	}
	if wide {
		fmt.Fprintln(w, "\nBY ERROR (numbers as N, hex IDs as <id>)")
	} else {
		fmt.Fprintln(w, "\nBY ERROR (numbers as N, hex IDs as <id>; --wide: an example of each)")
	}
	t = table.New(2)
	if wide {
		t.Row("JOBS", "ERROR", "EXAMPLE")
	} else {
		t.Row("JOBS", "ERROR")
	}
	errs := model.Sorted(s.ByError)
	jobsW := len("JOBS")
	for _, n := range errs {
		jobsW = max(jobsW, len(strconv.FormatInt(n.N, 10)))
	}
	for _, n := range errs {
		key, ex := n.Key, s.ErrorExample[n.Key]
		if key == "" {
			key = "(no error)"
		}
		if wide {
			t.Row(strconv.FormatInt(n.N, 10), c(key), c(ex))
			continue
		}
		t.Row(strconv.FormatInt(n.N, 10), textsafe.Cut(c(key), 80-jobsW-2))
	}
	_, err := t.WriteTo(w)
	return err
}
