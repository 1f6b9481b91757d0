package cli

// This file owns the find command: every place a job is, by id or by a
// query, one line per place (or JSON). It only reads.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/redisq"
)

// ExitNotFound is find's status when no job was found.
const ExitNotFound = 4

func findCommand() command {
	return command{
		name:    "find",
		args:    "ID... | --where QUERY",
		summary: "find jobs by id or query in every queue, in-progress list, set, busy worker and unique key",
		help: `Look for jobs in every place gocraft/work keeps one: each queue (with how
many jobs run before it), each pool's in-progress lists (with the pool's
status: alive, late or dead), the retry, scheduled and dead sets (with the
time), the busy workers' observations (running since, last check-in) and
the unique keys of the unique jobs found (a key that still blocks a new
EnqueueUnique, with its TTL). A query by job name and arguments only also
scans the unique keys for one whose job is in no other place (printed
with the id "-"), with progress on stderr when it takes long. One line
per place. Every key is read in steps; nothing is written, so find works
under --read-only.

  find ID...                 jobs with any of these ids
  find --where QUERY         jobs matching QUERY (see jobs --help)
  --in queues,dead,...       only these places: queues, in-progress, retry,
                             scheduled, dead, workers, unique

Exit status 0 when a job was found, 4 when none was.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &findCmd{}
			c.target.addFlags(fs)
			fs.StringVar(&c.where, "where", "", "find the jobs matching `QUERY`")
			fs.StringVar(&c.in, "in", "", "look only in these `PLACES`, comma-separated")
			fs.BoolVar(&c.json, "json", false, "print the places as JSON")
			fs.BoolVar(&c.wide, "wide", false, "print each place on one line (the text fits 80 columns without it)")
			return c
		},
	}
}

type findCmd struct {
	target
	where string
	in    string
	json  bool
	wide  bool
}

func (c *findCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	if len(args) == 0 && c.where == "" {
		return usageErrorf("find needs job IDs or --where QUERY")
	}
	for _, a := range args {
		if a == "" {
			return usageErrorf("empty job ID")
		}
	}
	q, err := c.parseWhere(e, c.where, "")
	if err != nil {
		return err
	}
	spec := redisq.FindSpec{IDs: args, Query: q, Now: time.Now(), Progress: findProgressPrinter(e.stderr, time.Now)}
	if c.in != "" {
		spec.In = map[string]bool{}
		for _, p := range strings.Split(c.in, ",") {
			if !contains(redisq.FindPlaces, p) {
				return usageErrorf("--in: unknown place %q: want %s", p, strings.Join(redisq.FindPlaces, ", "))
			}
			spec.In[p] = true
		}
	}
	conn, done, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer done()
	places, err := redisq.Find(ctx, conn, redisq.NewKeys(c.namespace), spec)
	if err != nil {
		return err
	}
	if c.json {
		if places == nil {
			places = []redisq.Place{}
		}
		b, err := json.MarshalIndent(places, "", "  ")
		if err != nil {
			return localErrorf("encode JSON: %w", err)
		}
		if _, err := e.stdout.Write(append(escapeTerminalRunes(nil, b), '\n')); err != nil {
			return err
		}
	} else {
		writePlaces(e.stdout, places, spec.Now, c.wide)
	}
	if len(places) == 0 {
		fmt.Fprintln(e.stderr, "workq-tui: no job found")
		return &exitCodeError{code: ExitNotFound}
	}
	return nil
}

// writePlaces prints one line per place, text from Redis cleaned.
func writePlaces(w io.Writer, places []redisq.Place, now time.Time, wide bool) {
	c := textsafe.Clean
	utc := func(s int64) string { return time.Unix(s, 0).UTC().Format(time.RFC3339) }
	ago := func(s int64) string { return now.Sub(time.Unix(s, 0)).Round(time.Second).String() }
	for _, p := range places {
		id := c(p.ID)
		if id == "" {
			id = "-" // a unique key whose job is in no other place
		}
		head := fmt.Sprintf("%-11s %s %s", p.Kind, id, c(p.Name))
		var where string
		switch p.Kind {
		case redisq.PlaceQueue:
			where = fmt.Sprintf("in %s, %d job(s) run before it", c(p.Key), p.Position)
			if p.Paused {
				where = fmt.Sprintf("in %s, paused: nothing runs until it is unpaused, then %d job(s) before it", c(p.Key), p.Position)
			}
		case redisq.PlaceInProgress:
			where = fmt.Sprintf("in %s, pool %s is %s", c(p.Key), c(p.Pool), p.PoolStatus)
		case redisq.PlaceRetry, redisq.PlaceScheduled, redisq.PlaceDead:
			where = fmt.Sprintf("in %s, %s %s", c(p.Key), p.ScoreField, utc(p.At))
		case redisq.PlaceWorker:
			where = fmt.Sprintf("worker %s of pool %s (%s), running for %s, last check-in %s ago", c(p.Worker), c(p.Pool), p.PoolStatus, ago(p.StartedAt), ago(p.CheckinAt))
			if p.CheckinAt == 0 {
				where = fmt.Sprintf("worker %s of pool %s (%s), running for %s, no check-in", c(p.Worker), c(p.Pool), p.PoolStatus, ago(p.StartedAt))
			}
		case redisq.PlaceUnique:
			ttl := "no TTL"
			if p.TTL >= 0 {
				ttl = fmt.Sprintf("TTL %ds", p.TTL)
			}
			where = fmt.Sprintf("unique key %s blocks a new enqueue of it, %s", c(p.Key), ttl)
			if p.ID == "" {
				where = fmt.Sprintf("unique key %s blocks a new enqueue of these arguments, its job in no other place, %s", c(p.Key), ttl)
			}
			if p.InValue {
				where = fmt.Sprintf("unique key %s holds it: it runs, with these arguments, when a worker takes the stand-in that holds the key, %s", c(p.Key), ttl)
			}
		}
		if line := head + "  " + where; wide || textsafe.Width(line) <= findWidth {
			fmt.Fprintln(w, line)
			continue
		}
		// Too wide for 80 columns: where goes under the place's name,
		// wrapped at spaces.
		fmt.Fprintln(w, head)
		for _, l := range wrapWords(where, findWidth-len(findIndent)) {
			fmt.Fprintln(w, findIndent+l)
		}
	}
}

// findWidth is the width find's text fits without --wide; findIndent is
// where a place's second line starts, under the id.
const (
	findWidth  = 80
	findIndent = "            "
)

// findProgressPrinter reports find's scan of the unique keys on w once it
// has taken a second, then at most once a second.
func findProgressPrinter(w io.Writer, now func() time.Time) func(redisq.FindProgress) {
	start := now()
	last := start
	return func(p redisq.FindProgress) {
		t := now()
		if t.Sub(last) < time.Second {
			return
		}
		last = t
		fmt.Fprintf(w, "unique keys: scanned about %d of %d keys\n", p.Scanned, p.Keys)
	}
}
