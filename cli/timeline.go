package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

func timelineCommand() command {
	return command{
		name:    "timeline",
		summary: "chart deaths and failures still retrying per time bucket, with pool starts and last beats",
		help: `Rebuild when jobs failed from what Redis keeps: the dead set's scores (the
moment of death; only the window is read, in steps) and the failed_at of
jobs waiting in the retry set, counted per bucket, by job type and by error
(numbers and hex IDs folded). Beside them the moments pools of the pool set
started (their started_at, grouped by host: deploys and restarts) and the
last beat of the pools now dead. --where QUERY counts only the jobs that
match (the query language of jobs --where; see docs/jobs.md). A text chart
that fits 80 columns, or --json. Without --since and --bucket the text chart
is fitted to where the failures of the last 6h are (a window from the
first to now, in buckets short enough for about 24 lines) and says so. It
only reads.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &timelineCmd{fs: fs}
			c.target.addFlags(fs)
			addDeadAfter(fs, &c.deadAfter)
			fs.DurationVar(&c.since, "since", timelineDefaultSince, "the window: this long before Redis's time")
			fs.DurationVar(&c.bucket, "bucket", 5*time.Minute, "the length of a bucket (whole seconds)")
			fs.BoolVar(&c.json, "json", false, "print one JSON object")
			fs.StringVar(&c.where, "where", "", "count only the jobs matching QUERY (job:, err:, args.PATH:, ...)")
			return c
		},
	}
}

type timelineCmd struct {
	target
	fs            *pflag.FlagSet
	deadAfter     time.Duration
	since, bucket time.Duration
	json          bool
	where         string
	query         *model.Query
}

// timelineDefaultSince is the window without --since.
const timelineDefaultSince = 6 * time.Hour

// timelineFitLines is how many buckets a fitted chart has at most: it
// fits a terminal of 24 lines.
const timelineFitLines = 20

// timelineMaxBuckets bounds the buckets of one timeline.
const timelineMaxBuckets = 10000

func (c *timelineCmd) run(ctx context.Context, e env, args []string) error {
	if len(args) > 0 {
		return usageErrorf("timeline takes no arguments, got %q", args[0])
	}
	switch {
	case c.bucket < time.Second || c.bucket%time.Second != 0:
		return usageErrorf("--bucket must be a whole number of seconds, at least 1s, got %s", c.bucket)
	case c.since < c.bucket:
		return usageErrorf("--since (%s) must be at least --bucket (%s)", c.since, c.bucket)
	case c.since/c.bucket > timelineMaxBuckets:
		return usageErrorf("--since %s in buckets of %s makes more than %d buckets", c.since, c.bucket, timelineMaxBuckets)
	}
	var err error
	if c.query, err = c.parseWhere(e, c.where, ""); err != nil {
		return err
	}
	if err := c.check(e); err != nil {
		return err
	}
	if err := checkDeadAfter(c.deadAfter); err != nil {
		return err
	}
	tl, ns, err := c.read(ctx)
	if err != nil {
		return err
	}
	fitted := ""
	if !c.json && !c.fs.Changed("since") && !c.fs.Changed("bucket") {
		// The default window fitted to its failures: a recent incident
		// gets short buckets, not 72 lines of zeros above it.
		if since, bucket, ok := model.FitTimeline(tl, timelineFitLines); ok {
			c.since, c.bucket = since, bucket
			if tl, ns, err = c.read(ctx); err != nil {
				return err
			}
			fitted = fmt.Sprintf("fitted to the failures of the last %dh (--since and --bucket choose the window)", int(timelineDefaultSince.Hours()))
		}
	}
	widenPipe(e.stdout)
	if c.json {
		err = writeTimelineJSON(e.stdout, ns, tl)
	} else {
		err = writeTimelineText(e.stdout, tl, fitted)
	}
	if err != nil {
		return localErrorf("write timeline: %w", err)
	}
	return nil
}

// read takes the pools and the window's failures (redisq.ReadTimeline).
func (c *timelineCmd) read(ctx context.Context) (*model.Timeline, string, error) {
	conn, done, err := c.dial(ctx)
	if err != nil {
		return nil, "", err
	}
	defer done()
	tl, err := redisq.ReadTimeline(ctx, conn, c.namespace, c.deadAfter, c.since, c.bucket, c.query)
	if err != nil {
		return nil, "", err
	}
	return tl, c.namespace, nil
}

type timelineJSON struct {
	Namespace     string                 `json:"namespace"`
	From          int64                  `json:"from"`
	To            int64                  `json:"to"`
	BucketSeconds int64                  `json:"bucket_seconds"`
	Buckets       []model.TimelineBucket `json:"buckets"`
	Starts        []model.StartMarker    `json:"starts"`
	LastBeats     []model.BeatMarker     `json:"last_beats"`
}

func writeTimelineJSON(w io.Writer, ns string, tl *model.Timeline) error {
	out := timelineJSON{Namespace: ns, From: tl.From, To: tl.To, BucketSeconds: int64(tl.Bucket / time.Second),
		Buckets: tl.Buckets, Starts: tl.Starts, LastBeats: tl.LastBeats}
	if out.Starts == nil {
		out.Starts = []model.StartMarker{}
	}
	if out.LastBeats == nil {
		out.LastBeats = []model.BeatMarker{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// timelineBarWidth is the widest bar of the chart: the time (5), the
// counts (2 x 6), the bar and the top error fit 80 columns.
const timelineBarWidth = 30

// writeTimelineText prints one line per bucket: its start (UTC), deaths,
// failures retrying, a bar of both (# deaths, + retrying) scaled to the
// busiest bucket, and the bucket's top error; a marker line before the
// bucket where pools started or dead pools beat last.
func writeTimelineText(w io.Writer, tl *model.Timeline, fitted string) error {
	var b strings.Builder
	// Buckets under a minute start at seconds: their rows say them.
	clock, blank := "15:04", "     "
	if tl.Bucket < time.Minute {
		clock, blank = "15:04:05", "        "
	}
	peak := 1
	total := 0
	for _, bk := range tl.Buckets {
		peak = max(peak, bk.Deaths+bk.Retrying)
		total += bk.Deaths + bk.Retrying
	}
	fmt.Fprintf(&b, "%s %s to %s UTC, %s buckets (# dead, + retrying)\n", model.Plural(total, "failure", "failures"),
		time.Unix(tl.From, 0).UTC().Format("2006-01-02 15:04"), time.Unix(tl.To, 0).UTC().Format("15:04"), model.FormatAge(tl.Bucket))
	if fitted != "" {
		b.WriteString(fitted + "\n")
	}
	fmt.Fprintf(&b, "%-*s %5s %5s\n", len(blank), "TIME", "DEAD", "RETRY")
	bsec := int64(tl.Bucket / time.Second)
	markers := map[int64][]string{}
	for _, m := range tl.Starts {
		k := m.StartedAt - (m.StartedAt-tl.Buckets[0].Start)%bsec
		markers[k] = append(markers[k], fmt.Sprintf("^ %s started %s on %s", model.Plural(m.Pools, "pool", "pools"),
			time.Unix(m.StartedAt, 0).UTC().Format("15:04:05"), m.Host))
	}
	for _, m := range tl.LastBeats {
		k := m.HeartbeatAt - (m.HeartbeatAt-tl.Buckets[0].Start)%bsec
		markers[k] = append(markers[k], fmt.Sprintf("x pool %s on %s last beat %s", m.PoolID, m.Host,
			time.Unix(m.HeartbeatAt, 0).UTC().Format("15:04:05")))
	}
	for _, bk := range tl.Buckets {
		ms := markers[bk.Start]
		sort.Strings(ms)
		for _, m := range ms {
			fmt.Fprintf(&b, "%s %s\n", blank, textsafe.Cut(textsafe.Clean(m), 79-len(blank)))
		}
		n := bk.Deaths + bk.Retrying
		bar := ""
		if n > 0 {
			width := max(1, n*timelineBarWidth/peak)
			dead := bk.Deaths * width / n
			bar = strings.Repeat("#", dead) + strings.Repeat("+", width-dead)
		}
		line := fmt.Sprintf("%s %5d %5d  %-*s", time.Unix(bk.Start, 0).UTC().Format(clock), bk.Deaths, bk.Retrying, timelineBarWidth, bar)
		if top, _ := model.Top(bk.ByError); n > 0 {
			job, _ := model.Top(bk.ByJob)
			line += " " + textsafe.Cut(textsafe.Clean(job+": "+top), 80-1-textsafe.Width(line))
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
