package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/config"
	"github.com/workq-tui/workq-tui/internal/shellword"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

func explainCommand() command {
	return command{
		name:    "explain",
		args:    "JOB... | --pool POOL_ID...",
		summary: "say why job types JOB... are not running, with the command that fixes it; exit 3 on a cause",
		help: `Read the namespace once and tell, for each job type, whether it is running
normally or why not: a verdict in one line, the evidence under it, and the
command that fixes each cause. The checks, in order, all reported when
several hold: an unknown name (with close names), paused, no live pool
serving it, a lock at max_concurrency (held by dead pools, drifted, or
saturated by running jobs), the serving pools' workers busy with other job
types, jobs held in dead pools' or orphaned in-progress lists, an empty
queue while jobs wait in retry, unique keys blocking new enqueues, and
recent deaths with their top error; and job health: failing now (with the
thresholds, as snapshot's --fail-* flags set them), starving for a slot,
running on stuck workers, a backlog. With --pool, or for an argument that is
a pool ID, it tells why a pool is late or dead instead. Exit status 3 when
a cause was found. It only reads.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &explainCmd{fs: fs}
			c.target.addFlags(fs)
			addDeadAfter(fs, &c.deadAfter)
			addLongAfter(fs, &c.longAfter)
			addHealthLimits(fs, &c.limits)
			fs.BoolVar(&c.pool, "pool", false, "the arguments are worker pool IDs")
			fs.BoolVar(&c.json, "json", false, "print one JSON object")
			fs.BoolVar(&c.wide, "wide", false, "print each line whole (the text wraps at 80 columns without it; commands are never wrapped)")
			c.audit.addJournalFlag(fs)
			return c
		},
	}
}

type explainCmd struct {
	target
	fs        *pflag.FlagSet
	deadAfter time.Duration
	longAfter time.Duration
	limits    model.HealthLimits
	pool      bool
	json      bool
	wide      bool
	audit     auditFlag
}

func (c *explainCmd) run(ctx context.Context, e env, args []string) error {
	if len(args) == 0 {
		return usageErrorf("explain needs a job type name (or --pool and a pool ID)")
	}
	for _, a := range args {
		if a == "" {
			return usageErrorf("explain: an empty name")
		}
	}
	if err := checkLongAfter(c.longAfter); err != nil {
		return err
	}
	if err := c.check(e); err != nil {
		return err
	}
	if err := checkDeadAfter(c.deadAfter); err != nil {
		return err
	}
	limits, err := c.healthLimits(c.limits)
	if err != nil {
		return err
	}
	c.limits = limits
	rd, err := c.read(ctx, args)
	if err != nil {
		return err
	}
	markThrottled(e, c.audit, &c.target, rd.Snap)
	var jobs []model.Explanation
	var pools []model.PoolExplanation
	cause := false
	for _, a := range args {
		if c.isPool(rd.Snap, a) {
			pe := model.ExplainPool(rd.Snap, a)
			cause = cause || !pe.Running
			pools = append(pools, pe)
			continue
		}
		x := explainJob(rd, a)
		cause = cause || !x.Running
		jobs = append(jobs, x)
	}
	widenPipe(e.stdout)
	if c.json {
		err = writeExplainJSON(e.stdout, rd.Snap, jobs, pools, c.fixPrefix())
	} else {
		err = writeExplainText(e.stdout, jobs, pools, c.fixPrefix(), c.wide)
	}
	if err != nil {
		return localErrorf("write explanation: %w", err)
	}
	if cause {
		return errFindings
	}
	return nil
}

// isPool tells whether an argument names a pool: always with --pool;
// otherwise when it is a pool of the set and no job type's name.
func (c *explainCmd) isPool(snap *model.Snapshot, a string) bool {
	if c.pool {
		return true
	}
	if _, ok := snap.Pool(a); !ok {
		return false
	}
	for _, n := range model.JobNames(snap) {
		if n == a {
			return false
		}
	}
	return true
}

// read is redisq's ReadExplain: the snapshot, with the set facts and the
// orphan and unique keys' scans beside it. --long-after marks the
// long-running jobs of a saturated type.
func (c *explainCmd) read(ctx context.Context, args []string) (*redisq.ExplainRead, error) {
	d, stop, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	cl := redisq.NewDialerClient(d, c.namespace, c.deadAfter)
	defer cl.Close()
	var jobs []string
	if !c.pool {
		jobs = args
	}
	rd, err := cl.ReadExplain(ctx, jobs, redisq.DefaultScanCount)
	if err != nil {
		return nil, err
	}
	if c.longAfter > 0 {
		rd.Snap.LongAfter = c.longAfter
	}
	if err := cl.AssessJobs(ctx, redisq.NewHealthTracker(c.namespace, c.limits), rd.Snap); err != nil {
		return nil, err
	}
	return rd, nil
}

// explainOwnFlag reports whether a flag is explain's own, one the fix
// commands do not take (or, like --read-only, would refuse).
func explainOwnFlag(name string) bool {
	switch name {
	case "json", "wide", "pool", "long-after", "dead-after", "read-only", "demo", "demo-seed", "help", "version":
		return true
	}
	for _, k := range config.HealthKeys() {
		if name == config.HealthFlag(k) {
			return true
		}
	}
	return false
}

// fixPrefix is the command prefix in force (commandPrefix), so that a fix
// command runs against the same Redis and namespace.
func (c *explainCmd) fixPrefix() string { return commandPrefix(&c.target) }

// fixLine is a cause's fix as a command line, "" when it has none or
// when no command line can carry one of its words (a NUL byte read from
// Redis: noFix says so instead).
func fixLine(prefix string, fix []string) string {
	if len(fix) == 0 {
		return ""
	}
	words := make([]string, len(fix))
	for i, w := range fix {
		if !shellword.Quotable(w) {
			return ""
		}
		words[i] = shellword.Quote(w)
	}
	return prefix + " " + strings.Join(words, " ")
}

// noFix is why a cause with a fix prints none: "" when it prints one.
func noFix(fix []string) string {
	for _, w := range fix {
		if !shellword.Quotable(w) {
			return "no fix printed: a name holds a NUL byte, which no command line can pass"
		}
	}
	return ""
}

func writeExplainText(w io.Writer, jobs []model.Explanation, pools []model.PoolExplanation, prefix string, wide bool) error {
	var b strings.Builder
	// say writes text after indent, wrapped at spaces to 80 columns
	// (lines after the first indented two more), whole with --wide.
	say := func(indent, text string) {
		text = textsafe.Clean(text)
		if wide {
			b.WriteString(indent + text + "\n")
			return
		}
		for i, l := range wrapWords(text, max(explainWidth-textsafe.Width(indent)-2, 20)) {
			if i > 0 {
				l = "  " + l
			}
			b.WriteString(indent + l + "\n")
		}
	}
	one := func(subject, verdict string, facts []string, causes []model.Cause) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		say("", textsafe.Clean(subject)+": "+verdict)
		for _, f := range facts {
			say("  ", f)
		}
		for i, c := range causes {
			if len(causes) > 1 || c.Verdict != verdict {
				say("  ", fmt.Sprintf("%d. %s", i+1, c.Verdict))
			}
			for _, ev := range c.Evidence {
				say("     ", ev)
			}
			// A command line stays whole, so that it pastes.
			if l := fixLine(prefix, c.Fix); l != "" {
				fmt.Fprintf(&b, "     fix: %s\n", textsafe.Clean(l))
			} else if why := noFix(c.Fix); why != "" {
				fmt.Fprintf(&b, "     %s\n", why)
			}
			if c.FixText != "" {
				say("     ", c.FixText)
			}
		}
	}
	for _, x := range jobs {
		one(x.Job, x.Verdict, x.Facts, x.Causes)
	}
	for _, p := range pools {
		one("pool "+p.PoolID, p.Verdict, p.Facts, p.Causes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// explainWidth is the width explain's text wraps to without --wide.
const explainWidth = 80

// The JSON shape of `explain --json`; docs/explain.md describes it.
type explainJSON struct {
	Namespace string            `json:"namespace"`
	RedisTime int64             `json:"redis_time"`
	Jobs      []explanationJSON `json:"jobs"`
	Pools     []explanationJSON `json:"pools"`
}

type explanationJSON struct {
	Subject string      `json:"subject"`
	Running bool        `json:"running"`
	Verdict string      `json:"verdict"`
	Facts   []string    `json:"facts"`
	Causes  []causeJSON `json:"causes"`
}

type causeJSON struct {
	Kind     string   `json:"kind"`
	Verdict  string   `json:"verdict"`
	Evidence []string `json:"evidence"`
	// Fix is the command line that fixes the cause, null when none does;
	// FixArgs its words after the program name and connection flags.
	Fix     *string  `json:"fix"`
	FixArgs []string `json:"fix_args"`
	FixText string   `json:"fix_text"`
}

func writeExplainJSON(w io.Writer, snap *model.Snapshot, jobs []model.Explanation, pools []model.PoolExplanation, prefix string) error {
	conv := func(subject string, running bool, verdict string, facts []string, causes []model.Cause) explanationJSON {
		x := explanationJSON{Subject: subject, Running: running, Verdict: verdict, Facts: nonNil(facts), Causes: []causeJSON{}}
		for _, c := range causes {
			cj := causeJSON{Kind: c.Kind, Verdict: c.Verdict, Evidence: nonNil(c.Evidence), FixArgs: nonNil(c.Fix), FixText: c.FixText}
			if l := fixLine(prefix, c.Fix); l != "" {
				cj.Fix = &l
			}
			x.Causes = append(x.Causes, cj)
		}
		return x
	}
	out := explainJSON{Namespace: snap.Namespace, RedisTime: snap.RedisTime.Unix(), Jobs: []explanationJSON{}, Pools: []explanationJSON{}}
	for _, x := range jobs {
		out.Jobs = append(out.Jobs, conv(x.Job, x.Running, x.Verdict, x.Facts, x.Causes))
	}
	for _, p := range pools {
		out.Pools = append(out.Pools, conv(p.PoolID, p.Running, p.Verdict, p.Facts, p.Causes))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// explainJob is explain's answer for one job type of a read: the set facts
// with that type's unique keys.
func explainJob(rd *redisq.ExplainRead, job string) model.Explanation {
	f := rd.Facts
	f.Unique, f.UniqueScanned = rd.Unique[job], true
	f.Waiting, f.QueueRead = rd.Waiting[job], rd.QueueRead[job]
	return model.Explain(rd.Snap, f, job)
}
