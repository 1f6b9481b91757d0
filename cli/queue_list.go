package cli

// This file owns the listing of a job type's queue, one page in the order
// its jobs will run: `jobs queue JOB [--limit N] [--offset N] [--json]`.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/table"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// queueListFlags are the flags of a queue listing.
type queueListFlags struct {
	limit  int
	offset int
	json   bool
	// query, when not empty, lists only the jobs it matches, walking the
	// whole queue in steps.
	query *model.Query
}

func (f *queueListFlags) addFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.limit, "limit", redisq.DefaultQueuePage, fmt.Sprintf("jobs per page (at most %d)", redisq.MaxQueuePage))
	fs.IntVar(&f.offset, "offset", 0, "jobs skipped before the page, in run order")
	fs.BoolVar(&f.json, "json", false, "print the page as JSON")
}

func (f queueListFlags) check() error {
	switch {
	case f.limit < 1 || f.limit > redisq.MaxQueuePage:
		return usageErrorf("--limit must be 1 to %d", redisq.MaxQueuePage)
	case f.offset < 0:
		return usageErrorf("--offset must not be negative")
	}
	return nil
}

// queueArgsWidth is how many columns of a job's arguments a row shows.
const queueArgsWidth = 60

// listQueue prints one page of job's queue in run order: LLEN and one
// LRANGE, nothing else, so it runs with --read-only too. t is a target
// whose flags are parsed and checked (target.check).
func listQueue(ctx context.Context, e env, t *target, job string, f queueListFlags) error {
	if job == "" {
		return usageErrorf("jobs queue needs a job type name")
	}
	if err := f.check(); err != nil {
		return err
	}
	conn, done, err := t.dial(ctx)
	if err != nil {
		return err
	}
	defer done()
	var page redisq.QueuePage
	if f.query.Empty() {
		page, err = redisq.ReadQueuePage(ctx, conn, redisq.NewKeys(t.namespace), job, f.offset, f.limit)
	} else {
		page, err = redisq.FilterQueuePage(ctx, conn, redisq.NewKeys(t.namespace), job, f.query, f.offset, f.limit)
	}
	if errors.Is(err, redisq.ErrBadPage) {
		return usageErrorf("%v", err)
	}
	if err == nil {
		err = redisq.ReadRunsAs(ctx, conn, &page)
	}
	if err != nil {
		return err // the command's runner names the address (withAddress)
	}
	if f.json {
		return writeQueueJSON(e.stdout, page)
	}
	return writeQueuePage(e.stdout, page)
}

// writeQueueJSON prints the page as JSON, every rune a terminal would act
// on escaped as snapshot --json does (escapeTerminalRunes).
func writeQueueJSON(w io.Writer, page redisq.QueuePage) error {
	b, err := json.MarshalIndent(page, "", "  ")
	if err != nil {
		return localErrorf("encode JSON: %w", err)
	}
	_, err = w.Write(append(escapeTerminalRunes(nil, b), '\n'))
	return err
}

// writeQueuePage prints the page as a table: #1 runs next. Every text
// from Redis goes through textsafe.Clean; columns line up by display width.
func writeQueuePage(w io.Writer, page redisq.QueuePage) error {
	c := textsafe.Clean
	head := fmt.Sprintf("queue %s: length %d", c(page.JobName), page.Length)
	if len(page.Jobs) == 0 {
		_, err := fmt.Fprintf(w, "%s, no job at #%d or after.\n", head, page.Offset+1)
		return err
	}
	first := page.Jobs[0].Position + 1
	last := page.Jobs[len(page.Jobs)-1].Position + 1
	if _, err := fmt.Fprintf(w, "%s, jobs #%d–#%d in run order (#1 runs next)\n", head, first, last); err != nil {
		return err
	}
	t := table.New(2)
	t.Row("#", "ENQUEUED (UTC)", "ID", "ARGS")
	runsAs := false
	for _, j := range page.Jobs {
		pos := strconv.FormatInt(j.Position+1, 10)
		if j.ParseErr != nil && j.ID == "" && j.Name == "" && len(j.Args) == 0 {
			t.Row(pos, "-", "(not a job)", "raw "+textsafe.Cut(c(j.Raw), queueArgsWidth))
			continue
		}
		at := "-"
		if j.EnqueuedAt != 0 {
			at = time.Unix(j.EnqueuedAt, 0).UTC().Format("2006-01-02 15:04:05")
		}
		id := c(j.ID)
		if id == "" {
			id = "-"
		}
		t.Row(pos, at, id, textsafe.Cut(c(compactArgs(j.Args)), queueArgsWidth))
		if r := j.RunsAs; r != nil {
			runsAs = true
			t.Row("", "  runs as", c(r.ID), textsafe.Cut(c(compactArgs(r.Args)), queueArgsWidth))
		}
	}
	if _, err := t.WriteTo(w); err != nil || !runsAs {
		return err
	}
	_, err := fmt.Fprintln(w, "runs as: the job its unique key holds (gocraft/work master's EnqueueUniqueByKey:\na refused enqueue rewrote it), the one a worker runs when it takes the job above")
	return err
}

// compactArgs is a job's arguments on one line: compacted JSON, "null"
// for none, the stored text when it is not JSON.
func compactArgs(args json.RawMessage) string {
	if len(args) == 0 {
		return "null"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, args); err != nil {
		return string(args)
	}
	return b.String()
}
