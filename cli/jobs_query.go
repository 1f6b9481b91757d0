package cli

// This file owns what the jobs command does with a query: --where parsed
// before anything connects, the progress of a paced bulk requeue, and the
// report of one stopped midway.

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/config"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// parseWhere reads --where, with --error TEXT as one more err: term. A
// word @NAME is the query saved under NAME in the configuration file's
// [queries] (the file --config names, else the default one). The times
// of the query are read against this machine's clock, clock times of
// today in UTC (the zone the command line prints times in). A bad query is
// a usage error: nothing was read or written.
func (t *target) parseWhere(e env, where, errText string) (*model.Query, error) {
	if model.UsesSaved(where) {
		f, err := readConfig(e, t.configPath)
		if err != nil {
			return nil, err
		}
		from := f.Path
		if from == "" {
			from, _ = config.DefaultPath(e.getenv)
		}
		if where, err = model.ExpandSaved(where, f.Queries, from); err != nil {
			return nil, usageErrorf("--where: %s", textsafe.Clean(err.Error()))
		}
	}
	q, err := model.ParseQuery(where, model.QueryClock{Now: time.Now(), Zone: time.UTC})
	if err != nil {
		return nil, usageErrorf("--where: %v", err)
	}
	if errText != "" {
		q.Errs = append(q.Errs, strings.ToLower(errText))
		q.Text = strings.TrimSpace(q.Text + " err:" + model.QuoteQueryValue(errText))
	}
	return q, nil
}

// rateProgress reports a paced bulk action on w about once a second: done,
// left, the rate so far and the time left at that rate.
func rateProgress(w io.Writer, verb string, now func() time.Time) reaper.JobsProgress {
	start := now()
	var last time.Time
	return func(done, total int64) {
		t := now()
		if t.Sub(last) < time.Second && done < total {
			return
		}
		last = t
		left := max(total-done, 0)
		rate := float64(done) / max(t.Sub(start).Seconds(), 0.001)
		eta := "-"
		if rate > 0 {
			eta = (time.Duration(float64(left)/rate) * time.Second).Round(time.Second).String()
		}
		fmt.Fprintf(w, "%s %d, %d left, %.0f jobs/s, about %s left\n", verb, done, left, rate, eta)
	}
}

// reportStopped says what a bulk action stopped midway did and left.
func reportStopped(w io.Writer, title string, p reaper.JobsPlan, r reaper.JobsResult) {
	left := max(p.Total-r.Done-r.GoneCount-r.RescoredCount, 0)
	fmt.Fprintf(w, "Stopped: %d of %d jobs done, %d left; run the same command again to finish (%s).\n", r.Done, p.Total, left, title)
}
