package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/table"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

func snapshotCommand() command {
	return command{
		name:    "snapshot",
		summary: "print every pool, job type and busy worker once (--json for JSON); exit 3 on dead pools, drift, orphans or job health problems",
		help: `Read the namespace once and print its worker pools, job types, busy
workers, orphaned in-progress lists and findings, as a table or (--json) as
one JSON object. A job running longer than --long-after is a long_running
finding. Exit status 3 when there are dead pools, lock drift, orphans or
job health problems (long-running jobs alone do not change it): a type
failing (its failure rate over --fail-window at or above --fail-floor a
minute and over --fail-multiple times the --fail-baseline before), a
backlog (the oldest job waited over --wait-limit), starving (no slot free
for over --starve-after), stuck workers (running over --long-after or no
check-in for --checkin-limit while their pool's types wait), paused with
jobs waiting over --paused-limit, or unserved (no live pool); 1, with one line naming the
namespaces the database holds, when the namespace holds no gocraft/work
key at all (a typo in -n, most often). Redis health findings (an
eviction policy other than noeviction, memory above 90% of maxmemory,
changes not on disk, a replica down or behind, a large dead set) are
warnings that change it only with --strict. It only reads.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &snapshotCmd{}
			c.target.addFlags(fs)
			addDeadAfter(fs, &c.deadAfter)
			addLongAfter(fs, &c.longAfter)
			addHealthLimits(fs, &c.limits)
			fs.BoolVar(&c.json, "json", false, "print one JSON object")
			fs.BoolVar(&c.wide, "wide", false, "print IDs and cells whole (the table fits 80 columns without it)")
			fs.BoolVar(&c.strict, "strict", false, "exit 3 on Redis health findings too")
			c.audit.addJournalFlag(fs)
			return c
		},
	}
}

type snapshotCmd struct {
	target
	deadAfter time.Duration
	longAfter time.Duration
	limits    model.HealthLimits
	json      bool
	wide      bool
	strict    bool
	audit     auditFlag
}

// addLongAfter adds --long-after: how long a job may run before it is
// reported as long-running.
func addLongAfter(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "long-after", model.DefaultLongAfter, "a job running longer than this is long-running (a Go duration: 90s, 10m, 2h)")
}

func checkLongAfter(d time.Duration) error {
	if d <= 0 {
		return usageErrorf("--long-after must be positive, got %s", d)
	}
	return nil
}

// run reads the namespace once (the pipelined snapshot, then the orphan
// scan), prints it and exits 3 when there are dead pools, drift or orphans.
func (c *snapshotCmd) run(ctx context.Context, e env, args []string) error {
	if len(args) > 0 {
		return usageErrorf("snapshot takes no arguments, got %q", args[0])
	}
	if err := checkLongAfter(c.longAfter); err != nil {
		return err
	}
	if len(c.names) > 1 {
		return c.runTargets(ctx, e)
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
	snap, err := readSnapshot(ctx, &c.target, c.deadAfter, c.longAfter, limits)
	if err != nil {
		return err
	}
	markThrottled(e, c.audit, &c.target, snap)
	widenPipe(e.stdout)
	empty := emptyNamespaceError(snap)
	switch {
	case c.json:
		err = writeSnapshotJSON(e.stdout, snap)
	case empty == nil:
		err = writeSnapshotTable(e.stdout, snap, c.wide)
	}
	if err != nil {
		return localErrorf("write snapshot: %w", err)
	}
	if empty != nil {
		return empty
	}
	if snap.HasProblems() || c.strict && snap.HasHealthFindings() {
		return errFindings
	}
	return nil
}

// emptyNamespaceError is the one-line error of a snapshot of an empty
// namespace (a typo, or the default namespace on a Redis that uses
// another): the finding, which names the namespaces found. nil otherwise.
func emptyNamespaceError(snap *model.Snapshot) error {
	for _, f := range snap.Findings {
		if f.Kind == model.FindingEmptyNamespace || f.Kind == model.FindingOtherLayout {
			return fmt.Errorf("namespace %s: %s", f.Subject, f.Detail)
		}
	}
	return nil
}

// readSnapshot reads t's namespace once: the pipelined snapshot, the
// orphan scan and the findings.
func readSnapshot(ctx context.Context, t *target, deadAfter, longAfter time.Duration, limits model.HealthLimits) (*model.Snapshot, error) {
	d, stop, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	cl := redisq.NewDialerClient(d, t.namespace, deadAfter)
	defer cl.Close()
	// The orphan scan walks the keyspace on a connection of its own while
	// the snapshot is read: neither needs the other, and the scan is mostly
	// round trips (as long as the snapshot itself at 1,000 pools).
	var orph redisq.OrphanResult
	var orphErr error
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		orph, orphErr = cl.ScanOrphans(ctx, redisq.DefaultScanCount, nil)
	}()
	snap, err := cl.Snapshot(ctx)
	if err == nil {
		snap.Health, err = cl.Health(ctx)
	}
	// While the scan runs: the job health's reads (which use no orphan),
	// and the variant's evidence when the namespace has keys besides
	// orphans (the evidence depends on the orphans only to tell an empty
	// namespace, which a pool, a job type, a set member or a warning
	// already rules out).
	// Their errors come after the snapshot's and the scan's.
	var variant *model.Variant
	var readErr error
	if err == nil {
		snap.LongAfter = longAfter
		if !model.EmptyNamespace(snap) {
			var v model.Variant
			if v, readErr = cl.Variant(ctx, snap); readErr == nil {
				variant = &v
			}
		}
		if readErr == nil {
			// The job health of one read: the hour's failures, all of
			// them new.
			readErr = cl.AssessJobs(ctx, redisq.NewHealthTracker(t.namespace, limits), snap)
		}
	}
	<-scanned
	if err != nil {
		return nil, err
	}
	if orphErr != nil {
		return nil, orphErr
	}
	if readErr != nil {
		return nil, readErr
	}
	snap.Orphans = orph.Orphans
	snap.Warnings = append(snap.Warnings, orph.Warnings...)
	if model.EmptyNamespace(snap) {
		// Most often a typo in the namespace: name the ones that exist.
		search, err := cl.FindNamespaces(ctx)
		if err != nil {
			return nil, err
		}
		snap.Search = &search
	}
	if variant == nil {
		v, err := cl.Variant(ctx, snap)
		if err != nil {
			return nil, err
		}
		variant = &v
	}
	snap.Variant = variant
	snap.Findings = model.WithJobHealth(model.Findings(snap), snap.Jobs)
	return snap, nil
}

// The JSON shape of `snapshot --json`. Times are unix seconds, ages and
// latencies seconds; unknown values are null, empty lists [] and empty maps
// {}.
type snapshotJSON struct {
	Namespace string                 `json:"namespace"`
	RedisTime int64                  `json:"redis_time"`
	Pools     []poolJSON             `json:"pools"`
	JobTypes  []jobTypeJSON          `json:"job_types"`
	Workers   []workerJSON           `json:"workers"`
	Sets      model.SetCounts        `json:"sets"`
	Orphans   []model.InProgressList `json:"orphans"`
	Findings  []model.Finding        `json:"findings"`
	// NamespaceSearch is null unless the namespace is empty: then the
	// namespaces of the database that hold gocraft/work keys.
	NamespaceSearch *model.NamespaceSearch `json:"namespace_search"`
	// Variant is which build wrote the namespace, with the evidence;
	// absent for gocraft/work's layout with nothing that tells a later
	// build or Harbor (see docs/namespace.md).
	Variant *model.Variant `json:"variant,omitempty"`
}

type poolJSON struct {
	ID                  string           `json:"id"`
	Status              model.Status     `json:"status"`
	Heartbeat           *heartbeatJSON   `json:"heartbeat"`
	HeartbeatAgeSeconds *float64         `json:"heartbeat_age_seconds"`
	InProgress          map[string]int64 `json:"in_progress"`
	LockInfo            map[string]int64 `json:"lock_info"`
}

type heartbeatJSON struct {
	// HeartbeatAt is null when the field is missing or not a number.
	HeartbeatAt *int64   `json:"heartbeat_at"`
	StartedAt   int64    `json:"started_at"`
	Host        string   `json:"host"`
	PID         int64    `json:"pid"`
	Concurrency int64    `json:"concurrency"`
	JobNames    []string `json:"job_names"`
	WorkerIDs   []string `json:"worker_ids"`
}

type jobTypeJSON struct {
	Name           string   `json:"name"`
	Queued         int64    `json:"queued"`
	LatencySeconds *float64 `json:"latency_seconds"`
	InProgress     int64    `json:"in_progress"`
	Lock           int64    `json:"lock"`
	LockInfoTotal  int64    `json:"lock_info_total"`
	MaxConcurrency int64    `json:"max_concurrency"`
	Paused         bool     `json:"paused"`
	Drift          bool     `json:"drift"`
	// Leaked is how many of InProgress are leaked entries (stand-ins
	// of jobs that already ran); absent when none.
	Leaked int64 `json:"leaked,omitempty"`
	// Throttled is who capped max_concurrency and when, while that cap
	// is in force (absent otherwise).
	Throttled *model.Throttled `json:"throttled,omitempty"`
}

// workerJSON is one worker; every field after busy is null for an idle
// worker.
type workerJSON struct {
	WorkerID string  `json:"worker_id"`
	PoolID   string  `json:"pool_id"`
	Busy     bool    `json:"busy"`
	JobName  *string `json:"job_name"`
	JobID    *string `json:"job_id"`
	// StartedAt is null when the observation's started_at is missing or
	// not a whole number, and RunningSeconds with it.
	StartedAt      *int64   `json:"started_at"`
	RunningSeconds *float64 `json:"running_seconds"`
	// Args is the job's arguments as the JSON value the observation holds;
	// null when it holds none, a JSON string of the text when it is not
	// JSON.
	Args      json.RawMessage `json:"args"`
	Checkin   *string         `json:"checkin"`
	CheckinAt *int64          `json:"checkin_at"`
}

// workerToJSON points into w, which must outlive the result.
func workerToJSON(w *model.Worker) workerJSON {
	out := workerJSON{WorkerID: w.WorkerID, PoolID: w.PoolID, Busy: w.Busy}
	if !w.Busy {
		return out
	}
	out.JobName, out.JobID = &w.JobName, &w.JobID
	if w.StartedAt != 0 {
		out.StartedAt = &w.StartedAt
		out.RunningSeconds = seconds(w.Running)
	}
	out.Args = argsJSON(w.Args)
	if w.HasCheckin {
		out.Checkin = &w.Checkin
	}
	if w.CheckinAt != 0 {
		out.CheckinAt = &w.CheckinAt
	}
	return out
}

// argsJSON is an observation's args as a JSON value: nil (null) for "",
// the value itself when it is JSON, else the text as a JSON string.
func argsJSON(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return nil
	}
	if json.Valid([]byte(args)) && utf8.ValidString(args) {
		return json.RawMessage(args)
	}
	js, _ := json.Marshal(args) // a string always marshals
	return js
}

func seconds(d *time.Duration) *float64 {
	if d == nil {
		return nil
	}
	s := math.Round(d.Seconds()*1000) / 1000
	return &s
}

func nonNilMap(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// snapshotToJSON is the JSON value of snap.
func snapshotToJSON(snap *model.Snapshot) snapshotJSON {
	out := snapshotJSONWithoutWorkers(snap)
	out.Workers = make([]workerJSON, 0, len(snap.Workers))
	for i := range snap.Workers {
		out.Workers = append(out.Workers, workerToJSON(&snap.Workers[i]))
	}
	return out
}

// snapshotJSONWithoutWorkers is snapshotToJSON with Workers left nil.
func snapshotJSONWithoutWorkers(snap *model.Snapshot) snapshotJSON {
	out := snapshotJSON{
		Namespace: snap.Namespace,
		RedisTime: snap.RedisTime.Unix(),
		Pools:     make([]poolJSON, 0, len(snap.Pools)),
		JobTypes:  make([]jobTypeJSON, 0, len(snap.JobTypes)),
		Sets:      snap.Sets,
		Orphans:   snap.Orphans,
		Findings:  snap.Findings,

		NamespaceSearch: snap.Search,
	}
	if snap.Variant.Said() {
		out.Variant = snap.Variant
	}
	if out.Orphans == nil {
		out.Orphans = []model.InProgressList{}
	}
	if out.Findings == nil {
		out.Findings = []model.Finding{}
	}
	for _, p := range snap.Pools {
		pj := poolJSON{
			ID:                  p.ID,
			Status:              p.Status,
			HeartbeatAgeSeconds: seconds(p.HeartbeatAge),
			InProgress:          nonNilMap(p.InProgress),
			LockInfo:            nonNilMap(p.LockInfo),
		}
		if hb := p.Heartbeat; hb != nil {
			pj.Heartbeat = &heartbeatJSON{
				StartedAt:   hb.StartedAt,
				Host:        hb.Host,
				PID:         hb.PID,
				Concurrency: hb.Concurrency,
				JobNames:    nonNilStrings(hb.JobNames),
				WorkerIDs:   nonNilStrings(hb.WorkerIDs),
			}
			if !hb.HeartbeatAtMissing && !hb.HeartbeatAtMalformed {
				at := hb.HeartbeatAt
				pj.Heartbeat.HeartbeatAt = &at
			}
		}
		out.Pools = append(out.Pools, pj)
	}
	for _, jt := range snap.JobTypes {
		out.JobTypes = append(out.JobTypes, jobTypeJSON{
			Name:           jt.Name,
			Queued:         jt.Queued,
			LatencySeconds: seconds(jt.Latency),
			InProgress:     jt.InProgress,
			Lock:           jt.Lock,
			LockInfoTotal:  jt.LockInfoTotal,
			Leaked:         jt.Leaked,
			MaxConcurrency: jt.MaxConcurrency,
			Paused:         jt.Paused,
			Drift:          jt.Drift,
			Throttled:      jt.Throttled,
		})
	}
	return out
}

// writeSnapshotJSON prints one JSON object and a newline. JSON escapes
// control characters itself, so strings are not cleaned.
func writeSnapshotJSON(w io.Writer, snap *model.Snapshot) error {
	// encodeSnapshotJSON writes what json.Encoder with SetIndent("", "  ")
	// would, several times faster (see snapshot_json.go), in chunks.
	flush := func(b []byte) error {
		_, err := w.Write(b)
		return err
	}
	// The workers (thousands) are converted one at a time as they are
	// written rather than all at once.
	workers := snap.Workers
	if workers == nil {
		workers = []model.Worker{}
	}
	b, err := encodeSnapshotJSON(make([]byte, 0, jsonChunk+8192), snapshotJSONWithoutWorkers(snap), workers, flush)
	if err != nil {
		return err
	}
	return flush(b)
}

// writeSnapshotTable prints the snapshot for a person: a summary of the
// namespace and its job sets, the findings, then pools, job types, busy
// workers and orphans. Without wide its lines fit 80 columns (IDs
// shortened as the screen shortens them, long cells cut, details wrapped).
// Every string from Redis goes through textsafe.Clean; columns line up by
// display width.
func writeSnapshotTable(w io.Writer, snap *model.Snapshot, wide bool) error {
	c := textsafe.Clean
	tc := newTableCells(wide)
	bw := &errWriter{w: w}
	deadPools := len(snap.DeadPools())
	fmt.Fprintf(bw, "namespace %s   redis time %s   dead after %s\n",
		c(snap.Namespace), snap.RedisTime.UTC().Format("2006-01-02 15:04:05 UTC"), model.FormatAge(snap.DeadAfter))
	// Dead pools and dead jobs are two things: each says which it counts.
	fmt.Fprintf(bw, "%s, %s   job sets: retry %d   scheduled %d   dead jobs %d\n\n",
		model.Plural(len(snap.Pools), "pool", "pools"), model.Plural(deadPools, "dead pool", "dead pools"),
		snap.Sets.Retry, snap.Sets.Scheduled, snap.Sets.Dead)
	writeFindings(bw, snap, tc)

	fmt.Fprintf(bw, "\nPOOLS (%d)\n", len(snap.Pools))
	if len(snap.Pools) > 0 {
		t := table.New(2)
		// 80 columns keep the totals of the pool's jobs and locks; --wide
		// adds them per job type.
		if wide {
			t.Row("STATUS", "ID", "HOST:PID", "BEAT", "JOBS", "IN PROGRESS", "LOCKS")
		} else {
			t.Row("STATUS", "ID", "HOST:PID", "BEAT", "JOBS", "INPROG", "LOCKS")
		}
		for _, p := range snap.Pools {
			host, beat, jobs := "-", "none", "-"
			if hb := p.Heartbeat; hb != nil {
				host = textsafe.Cut(c(hb.Host)+":"+strconv.FormatInt(hb.PID, 10), tc.host)
				switch {
				case p.HeartbeatAge != nil:
					beat = model.FormatAge(*p.HeartbeatAge)
				case hb.HeartbeatAtMissing:
					beat = "no time"
				default:
					beat = "bad time"
				}
				if len(hb.JobNames) > 0 {
					jobs = textsafe.Cut(c(strings.Join(hb.JobNames, ",")), tc.jobs)
				}
			}
			inProgress, locks := strconv.FormatInt(p.InProgressTotal(), 10), strconv.FormatInt(p.LocksHeld(), 10)
			if wide {
				inProgress, locks = countsCell(p.InProgressTotal(), p.InProgress, tc.counts), countsCell(p.LocksHeld(), p.LockInfo, tc.counts)
			}
			t.Row(string(p.Status), tc.id(p.ID), host, beat, jobs, inProgress, locks)
		}
		_, _ = t.WriteTo(bw) // bw keeps the first error
	}

	fmt.Fprintf(bw, "\nJOB TYPES (%d)\n", len(snap.JobTypes))
	if len(snap.JobTypes) > 0 {
		t := table.New(2)
		// A name of up to 16 columns (whole with --wide) and INPROG, as
		// the screen calls it, keep the row within 80 columns.
		t.Row("NAME", "QUEUED", "LATENCY", "INPROG", "LOCK/MAX", "LOCK_INFO", "PAUSED", "DRIFT")
		for _, jt := range snap.JobTypes {
			lat := "-"
			if jt.Latency != nil {
				lat = model.FormatAge(*jt.Latency)
			}
			maxC := "-"
			if jt.MaxConcurrency > 0 {
				maxC = strconv.FormatInt(jt.MaxConcurrency, 10)
			}
			name := c(jt.Name)
			if !tc.wide {
				name = textsafe.Cut(name, tc.job)
			}
			t.Row(name, strconv.FormatInt(jt.Queued, 10), lat, strconv.FormatInt(jt.InProgress, 10),
				strconv.FormatInt(jt.Lock, 10)+"/"+maxC, strconv.FormatInt(jt.LockInfoTotal, 10),
				yesNo(jt.Paused, "paused"), yesNo(jt.Drift, "DRIFT"))
		}
		_, _ = t.WriteTo(bw) // bw keeps the first error
		for _, jt := range snap.JobTypes {
			if jt.Throttled != nil {
				fmt.Fprintf(bw, "%s: %s\n", c(jt.Name), textsafe.Clean(jt.Throttled.Text()))
			}
		}
	}

	writeWorkersTable(bw, snap, tc)

	if len(snap.Orphans) > 0 {
		fmt.Fprintf(bw, "\nORPHANED IN-PROGRESS LISTS (%d)\n", len(snap.Orphans))
		t := table.New(2)
		// The key names the job and the pool, and is what requeue takes:
		// 80 columns keep it whole and drop the two.
		if wide {
			t.Row("JOB", "POOL", "JOBS", "KEY")
		} else {
			t.Row("JOBS", "KEY")
		}
		for _, o := range snap.Orphans {
			if wide {
				t.Row(c(o.JobName), c(o.PoolID), strconv.FormatInt(o.Length, 10), c(o.Key))
			} else {
				t.Row(strconv.FormatInt(o.Length, 10), c(o.Key))
			}
		}
		_, _ = t.WriteTo(bw) // bw keeps the first error
	}
	return bw.err
}

// writeWorkersTable prints the busy workers, longest-running first, with
// LONG past the snapshot's LongAfter and the workers of dead pools marked.
func writeWorkersTable(w io.Writer, snap *model.Snapshot, tc tableCells) {
	c := textsafe.Clean
	busy := model.BusyWorkers(snap.Workers)
	fmt.Fprintf(w, "\nWORKERS (%d busy of %d)\n", len(busy), len(snap.Workers))
	if len(busy) == 0 {
		return
	}
	dead := map[string]bool{}
	for _, id := range snap.DeadPools() {
		dead[id] = true
	}
	t := table.New(2)
	// 80 columns leave out the pool (the note marks a dead one) and the
	// job's ID; --wide shows them.
	if tc.wide {
		t.Row("POOL", "WORKER", "JOB", "JOB ID", "RUNNING", "CHECKIN", "NOTE")
	} else {
		t.Row("WORKER", "JOB", "RUNNING", "CHECKIN", "NOTE")
	}
	for _, wk := range busy {
		running := "?"
		if wk.Running != nil {
			running = model.FormatAge(*wk.Running)
		}
		checkin := "-"
		if wk.HasCheckin {
			checkin = textsafe.Cut(c(wk.Checkin), tc.checkin)
		}
		var notes []string
		if wk.LongRunning(snap.LongAfter) {
			notes = append(notes, "LONG")
		}
		if dead[wk.PoolID] {
			notes = append(notes, "dead pool")
		}
		note := "-"
		if len(notes) > 0 {
			note = strings.Join(notes, ", ")
		}
		if tc.wide {
			t.Row(c(wk.PoolID), c(wk.WorkerID), textsafe.Cut(c(wk.JobName), tc.job), c(wk.JobID), running, checkin, note)
		} else {
			t.Row(tc.id(wk.WorkerID), textsafe.Cut(c(wk.JobName), tc.job), running, checkin, note)
		}
	}
	_, _ = t.WriteTo(w) // the caller's errWriter keeps the first error
}

// countsCell is "3 (email 2, resize 1)", or "0". Zero entries (lock_info
// fields gocraft/work leaves at 0) are left out.
func countsCell(total int64, per map[string]int64, cut int) string {
	names := make([]string, 0, len(per))
	for n, v := range per {
		if v != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return strconv.FormatInt(total, 10)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", textsafe.Clean(n), per[n]))
	}
	return fmt.Sprintf("%d (%s)", total, textsafe.Cut(strings.Join(parts, ", "), cut))
}

func yesNo(b bool, yes string) string {
	if b {
		return yes
	}
	return "-"
}

// errWriter keeps the first write error so the printing code stays flat.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
