// Job health: whether the work of each job type is getting done, from one
// snapshot, the failures of the last hour (the dead set's members by time
// of death, the retry set's by failed_at) and the observations of the
// workers that hold the slots. gocraft/work keeps no counters; these are
// derived from what Redis already holds. Each problem prints the
// thresholds it was judged by.

package model

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Job health finding kinds: problems, counted in HasProblems.
const (
	FindingFailing       = "failing"
	FindingBacklog       = "backlog"
	FindingStarving      = "starving"
	FindingStuck         = "stuck"
	FindingPausedBacklog = "paused_backlog"
	FindingUnserved      = "unserved"
)

// JobHealthKinds are the job health kinds, the worst first: the order the
// header names them in.
var JobHealthKinds = []string{FindingFailing, FindingStarving, FindingStuck, FindingUnserved, FindingBacklog, FindingPausedBacklog}

// Defaults of the job health thresholds (docs/namespace.md says why).
const (
	DefaultFailWindow   = 5 * time.Minute
	DefaultFailBaseline = time.Hour
	DefaultFailFloor    = 5.0 // failures a minute
	DefaultFailMultiple = 3.0
	DefaultWaitLimit    = 5 * time.Minute
	DefaultStarveAfter  = time.Minute
	DefaultPausedLimit  = 15 * time.Minute
	DefaultCheckinLimit = 5 * time.Minute
)

// HealthLimits are the thresholds job health is judged by.
type HealthLimits struct {
	// FailWindow is the window whose failure rate is judged, FailBaseline
	// the span before it whose rate is the norm.
	FailWindow, FailBaseline time.Duration
	// FailFloor is the rate (failures a minute) at or above which a type
	// can be failing; FailMultiple how many times the baseline's rate the
	// window's must exceed.
	FailFloor, FailMultiple float64
	// WaitLimit: a queue whose oldest job waited longer is a backlog.
	WaitLimit time.Duration
	// StarveAfter: queued jobs that waited longer with no slot free are
	// starving; with no live pool, unserved.
	StarveAfter time.Duration
	// PausedLimit: a paused type whose oldest job waited longer.
	PausedLimit time.Duration
	// CheckinLimit: a busy worker whose last check-in is older has
	// stopped checking in.
	CheckinLimit time.Duration
}

// DefaultHealthLimits are the defaults above.
func DefaultHealthLimits() HealthLimits {
	return HealthLimits{FailWindow: DefaultFailWindow, FailBaseline: DefaultFailBaseline,
		FailFloor: DefaultFailFloor, FailMultiple: DefaultFailMultiple, WaitLimit: DefaultWaitLimit,
		StarveAfter: DefaultStarveAfter, PausedLimit: DefaultPausedLimit, CheckinLimit: DefaultCheckinLimit}
}

// Check says what is wrong with the limits, in the words of their flags.
func (l HealthLimits) Check() error {
	switch {
	case l.FailWindow <= 0:
		return fmt.Errorf("--fail-window must be positive, got %s", l.FailWindow)
	case l.FailBaseline <= 0:
		return fmt.Errorf("--fail-baseline must be positive, got %s", l.FailBaseline)
	case l.FailFloor <= 0 || math.IsNaN(l.FailFloor) || math.IsInf(l.FailFloor, 0):
		return fmt.Errorf("--fail-floor must be a positive number of failures a minute, got %v", l.FailFloor)
	case l.FailMultiple < 1 || math.IsNaN(l.FailMultiple) || math.IsInf(l.FailMultiple, 0):
		return fmt.Errorf("--fail-multiple must be 1 or more, got %v", l.FailMultiple)
	case l.WaitLimit <= 0:
		return fmt.Errorf("--wait-limit must be positive, got %s", l.WaitLimit)
	case l.StarveAfter <= 0:
		return fmt.Errorf("--starve-after must be positive, got %s", l.StarveAfter)
	case l.PausedLimit <= 0:
		return fmt.Errorf("--paused-limit must be positive, got %s", l.PausedLimit)
	case l.CheckinLimit <= 0:
		return fmt.Errorf("--checkin-limit must be positive, got %s", l.CheckinLimit)
	}
	return nil
}

// History is how far back failures matter: the window and the baseline.
func (l HealthLimits) History() time.Duration { return l.FailWindow + l.FailBaseline }

// Failure is one failure of a job: a death (dead set, at its score) or a
// failure now retrying (retry set, at failed_at).
type Failure struct {
	At int64 // unix seconds
	// Err is the normalised error (NormalizeError).
	Err  string
	Dead bool
}

// FailureLog is the failures of each job type within a span of time, each
// type's in time order.
type FailureLog struct {
	// Since is the oldest time the log covers (unix seconds): failures
	// before it were not read.
	Since int64
	Jobs  map[string][]Failure
}

// ErrorShare is one normalised error and how many of the window's
// failures it caused.
type ErrorShare struct {
	Err   string `json:"error"`
	Count int    `json:"count"`
}

// JobRate is a job type's numbers behind its health.
type JobRate struct {
	// FailRate is failures a minute over the window, BaseRate over the
	// baseline before it.
	FailRate, BaseRate float64
	// Failures is how many failed in the window.
	Failures int
}

// JobProblem is one job health problem of a job type.
type JobProblem struct {
	Kind string
	Job  string
	// Detail is the evidence with the thresholds beside it; Short the few
	// words the header gives it ("failing 48/min (80% gateway timeout)").
	Detail, Short string
	// Rate is failures a minute (failing); Wait how long the oldest job
	// waited (backlog, starving, paused_backlog, unserved).
	Rate float64
	Wait time.Duration
	// Since is when a failing type began failing (unix seconds).
	Since int64
	// Errors are the window's top errors (failing); Share the top one's
	// share of the window's failures, in percent.
	Errors []ErrorShare
	Share  int
	// Holders are what holds the slots (starving) or the stuck workers'
	// words (stuck), for explain's evidence.
	Holders []string
	// Waiting are the types a stuck worker's pool leaves waiting.
	Waiting []string
}

// JobHealth is the job health of a snapshot.
type JobHealth struct {
	Limits HealthLimits
	// Rates are per job type that failed in the window or baseline.
	Rates map[string]JobRate
	// Problems in JobHealthKinds order, then by job name.
	Problems []JobProblem
	// Minutes are the failures of every type per minute over the last
	// hour, oldest first, the current minute last (the header's
	// sparkline); nil without a failure log.
	Minutes []int
}

// Of returns the problems of one job type.
func (h *JobHealth) Of(job string) []JobProblem {
	if h == nil {
		return nil
	}
	var out []JobProblem
	for _, p := range h.Problems {
		if p.Job == job {
			out = append(out, p)
		}
	}
	return out
}

// HealthInput is what AssessJobs reads beside the snapshot.
type HealthInput struct {
	// Failures are the failures of the history (nil: not read, no
	// failing findings).
	Failures *FailureLog
	// Workers are observations of the workers of the pools that matter
	// (the snapshot's own Workers are used as well when read).
	Workers []Worker
	// Waits are the earlier polls' queue samples per job type, oldest
	// first (nil for a one-shot read: only the wait limit applies).
	Waits map[string][]WaitSample
}

// WaitSample is a job type's queue at one poll.
type WaitSample struct {
	Queued int64
	Wait   time.Duration
}

// GrowthPolls is how many polls (the current one included) the wait and
// the queue must have grown over for a backlog by growth.
const GrowthPolls = 3

// WaitGrowing reports whether the wait grew at every one of the last
// GrowthPolls polls (earlier samples, then now) while the queue grew over
// them, the wait now past StarveAfter (a burst that drains within a minute
// is not a backlog).
func WaitGrowing(earlier []WaitSample, now WaitSample, l HealthLimits) bool {
	if len(earlier) < GrowthPolls-1 || now.Wait <= l.StarveAfter {
		return false
	}
	last := append(slices.Clone(earlier[len(earlier)-(GrowthPolls-1):]), now)
	for i := 1; i < len(last); i++ {
		if last[i].Wait <= last[i-1].Wait {
			return false
		}
	}
	return last[len(last)-1].Queued > last[0].Queued
}

// AssessJobs judges every job type of snap. It is pure: the only clock is
// snap.RedisTime.
func AssessJobs(snap *Snapshot, in HealthInput, l HealthLimits) *JobHealth {
	now := snap.RedisTime
	h := &JobHealth{Limits: l, Rates: map[string]JobRate{}}
	if in.Failures != nil {
		h.Minutes = failureMinutes(in.Failures, now)
		names := make([]string, 0, len(in.Failures.Jobs))
		for n := range in.Failures.Jobs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, job := range names {
			if p, r, ok := assessFailures(job, in.Failures.Jobs[job], now, l); ok {
				h.Rates[job] = r
				if p != nil {
					h.Problems = append(h.Problems, *p)
				}
			}
		}
	}
	workers := &workerIndex{a: snap.Workers, b: in.Workers}
	var served *servingPools
	for i := range snap.JobTypes {
		jt := &snap.JobTypes[i]
		if jt.Queued == 0 {
			continue
		}
		wait := time.Duration(0)
		if jt.Latency != nil {
			wait = *jt.Latency
		}
		if served == nil && !jt.Paused {
			served = newServingPools(snap)
		}
		switch {
		case jt.Paused:
			if wait > l.PausedLimit {
				h.Problems = append(h.Problems, JobProblem{Kind: FindingPausedBacklog, Job: jt.Name, Wait: wait,
					Short:  "paused, waiting " + ShortAge(wait),
					Detail: fmt.Sprintf("paused with %d queued, the oldest waiting %s (over %s)", jt.Queued, FormatAge(wait), FormatAge(l.PausedLimit))})
			}
		case !served.serves(jt.Name):
			if jt.Latency == nil || wait > l.StarveAfter {
				d := fmt.Sprintf("%d queued and no live pool lists it in job_names", jt.Queued)
				short := "unserved"
				if jt.Latency != nil {
					d += fmt.Sprintf("; the oldest waiting %s (over %s)", FormatAge(wait), FormatAge(l.StarveAfter))
					short = "unserved " + ShortAge(wait)
				}
				h.Problems = append(h.Problems, JobProblem{Kind: FindingUnserved, Job: jt.Name, Wait: wait, Short: short, Detail: d})
			}
		default:
			if p := assessStarving(snap, jt, served, workers, wait, l); p != nil {
				h.Problems = append(h.Problems, *p)
			} else if wait > l.WaitLimit {
				h.Problems = append(h.Problems, JobProblem{Kind: FindingBacklog, Job: jt.Name, Wait: wait,
					Short:  "waiting " + ShortAge(wait),
					Detail: fmt.Sprintf("%d queued, the oldest waiting %s (over %s)", jt.Queued, FormatAge(wait), FormatAge(l.WaitLimit))})
			} else if earlier := in.Waits[jt.Name]; WaitGrowing(earlier, WaitSample{Queued: jt.Queued, Wait: wait}, l) {
				first := earlier[len(earlier)-(GrowthPolls-1)]
				h.Problems = append(h.Problems, JobProblem{Kind: FindingBacklog, Job: jt.Name, Wait: wait,
					Short: "waiting " + ShortAge(wait) + " and growing",
					Detail: fmt.Sprintf("%d queued, the oldest waiting %s: over the last %d polls the wait grew from %s and the queue from %d (wait limit %s)",
						jt.Queued, FormatAge(wait), GrowthPolls, FormatAge(first.Wait), first.Queued, FormatAge(l.WaitLimit))})
			}
		}
	}
	h.Problems = append(h.Problems, assessStuck(snap, workers, l)...)
	rank := map[string]int{}
	for i, k := range JobHealthKinds {
		rank[k] = i
	}
	slices.SortStableFunc(h.Problems, func(a, b JobProblem) int {
		return cmp.Or(cmp.Compare(rank[a.Kind], rank[b.Kind]), cmp.Compare(b.Rate, a.Rate), cmp.Compare(b.Wait, a.Wait), cmp.Compare(a.Job, b.Job))
	})
	return h
}

// failureMinutes counts the failures of every type per minute over the
// hour before now.
func failureMinutes(log *FailureLog, now time.Time) []int {
	const n = 60
	out := make([]int, n)
	end := now.Unix()
	for _, fs := range log.Jobs {
		for _, f := range fs {
			age := end - f.At
			if age < 0 {
				age = 0
			}
			if i := n - 1 - int(age/60); i >= 0 {
				out[i]++
			}
		}
	}
	return out
}

// assessFailures judges one type's failures: failing when the window's
// rate is at or above the floor and above FailMultiple times the
// baseline's. ok is false when the type failed in neither span.
func assessFailures(job string, fs []Failure, now time.Time, l HealthLimits) (*JobProblem, JobRate, bool) {
	end := now.Unix()
	winStart := end - int64(l.FailWindow/time.Second)
	baseStart := winStart - int64(l.FailBaseline/time.Second)
	var r JobRate
	base := 0
	errs := map[string]int{}
	for _, f := range fs {
		switch {
		case f.At > winStart:
			r.Failures++
			errs[f.Err]++
		case f.At > baseStart:
			base++
		}
	}
	if r.Failures == 0 && base == 0 {
		return nil, r, false
	}
	r.FailRate = float64(r.Failures) / l.FailWindow.Minutes()
	r.BaseRate = float64(base) / l.FailBaseline.Minutes()
	if r.FailRate < l.FailFloor || r.FailRate <= l.FailMultiple*r.BaseRate {
		return nil, r, true
	}
	shares := make([]ErrorShare, 0, len(errs))
	for e, n := range errs {
		shares = append(shares, ErrorShare{Err: e, Count: n})
	}
	slices.SortFunc(shares, func(a, b ErrorShare) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Err, b.Err)) })
	if len(shares) > 3 {
		shares = shares[:3]
	}
	since := failingSince(fs, end, r.BaseRate, l)
	p := &JobProblem{Kind: FindingFailing, Job: job, Rate: r.FailRate, Since: since, Errors: shares}
	top := shares[0]
	pct := 100 * top.Count / r.Failures
	p.Share = pct
	errText := top.Err
	if errText == "" {
		errText = "no error text"
	}
	p.Short = fmt.Sprintf("failing %s/min (%d%% %s)", FormatRate(r.FailRate), pct, errText)
	var parts []string
	for _, s := range shares {
		parts = append(parts, fmt.Sprintf("%d%% %q", 100*s.Count/r.Failures, s.Err))
	}
	p.Detail = fmt.Sprintf("%d failures in the last %s, %s/min (floor %s/min, %s x the %s before: %s/min), since %s; top errors: %s",
		r.Failures, FormatAge(l.FailWindow), FormatRate(r.FailRate), FormatRate(l.FailFloor), FormatRate(l.FailMultiple),
		FormatAge(l.FailBaseline), FormatRate(r.BaseRate), time.Unix(since, 0).UTC().Format("15:04"), strings.Join(parts, ", "))
	return p, r, true
}

// failingSince is the start of the earliest minute of the unbroken run of
// minutes, ending now, whose rate alone passes the rule; the window's
// start when no single minute does.
func failingSince(fs []Failure, end int64, baseRate float64, l HealthLimits) int64 {
	winStart := end - int64(l.FailWindow/time.Second)
	minutes := map[int64]int{}
	for _, f := range fs {
		if f.At > end-int64(l.History()/time.Second) {
			minutes[(end-f.At)/60]++
		}
	}
	var back int64 = -1
	for m := int64(0); m*60 < int64(l.History()/time.Second); m++ {
		rate := float64(minutes[m])
		if rate < l.FailFloor || rate <= l.FailMultiple*baseRate {
			break
		}
		back = m
	}
	if back < 0 {
		return winStart
	}
	return end - (back+1)*60
}

// workerIndex finds the observations of a and b by worker ID (a's
// first). Its map is made at the first look-up: a namespace whose pools
// are all dead, or whose job types wait for nothing, never looks one up,
// and at 10,000 workers the map is most of what the job health allocates.
type workerIndex struct {
	a, b []Worker
	byID map[string]*Worker
}

func (x *workerIndex) get(id string) *Worker {
	if x.byID == nil {
		x.byID = mergeWorkers(x.a, x.b)
	}
	return x.byID[id]
}

// empty reports whether there is no observation at all.
func (x *workerIndex) empty() bool { return len(x.a) == 0 && len(x.b) == 0 }

// mergeWorkers is the observations of a and b, one per worker ID (a's
// first).
func mergeWorkers(a, b []Worker) map[string]*Worker {
	out := map[string]*Worker{}
	for _, ws := range [][]Worker{b, a} {
		for i := range ws {
			out[ws[i].WorkerID] = &ws[i]
		}
	}
	return out
}

// SaturatedPools are the live pools serving job whose every worker holds
// a job (in-progress lists at or above their concurrency); all reports
// whether every live pool serving it is.
func SaturatedPools(pools []*Pool) (full []*Pool, all bool) {
	for _, p := range pools {
		if p.Heartbeat.Concurrency > 0 && p.InProgressTotal() >= p.Heartbeat.Concurrency {
			full = append(full, p)
		}
	}
	return full, len(full) == len(pools) && len(pools) > 0
}

// assessStarving: jobs waited longer than StarveAfter while no slot was
// free for them, every worker of every live pool serving the type busy or
// the lock at max_concurrency held by live pools' running jobs (a lock
// held by dead pools or drifted is a finding of its own).
func assessStarving(snap *Snapshot, jt *JobType, served *servingPools, workers *workerIndex, wait time.Duration, l HealthLimits) *JobProblem {
	if wait <= l.StarveAfter {
		return nil
	}
	var why string
	var holders []string
	if jt.MaxConcurrency > 0 && jt.Lock >= jt.MaxConcurrency && liveHeld(jt, served.of(jt.Name)) >= jt.MaxConcurrency {
		why = fmt.Sprintf("lock %d at max_concurrency %d held by running jobs", jt.Lock, jt.MaxConcurrency)
		holders = holdersOf(served.of(jt.Name), workers, snap.RedisTime, jt.Name)
	} else if served.allSaturated(jt.Name) {
		pools := served.of(jt.Name)
		var n int64
		for _, p := range pools {
			n += p.Heartbeat.Concurrency
		}
		holders = holdersOf(pools, workers, snap.RedisTime, "")
		why = fmt.Sprintf("every one of the %s of its %s is busy", Plural(n, "worker", "workers"), Plural(len(pools), "live pool", "live pools"))
	} else {
		return nil
	}
	d := fmt.Sprintf("%d queued, the oldest waiting %s (over %s) with no slot free: %s", jt.Queued, FormatAge(wait), FormatAge(l.StarveAfter), why)
	if len(holders) > 0 {
		d += "; held by " + strings.Join(holders, ", ")
	}
	short := "waiting " + ShortAge(wait)
	if len(holders) > 0 {
		short += " (" + strings.SplitN(holders[0], ";", 2)[0] + ")"
	}
	return &JobProblem{Kind: FindingStarving, Job: jt.Name, Wait: wait, Short: short, Detail: d, Holders: holders}
}

// liveHeld is how much of jt's lock the pools hold (lock_info).
func liveHeld(jt *JobType, pools []*Pool) int64 {
	var n int64
	for _, p := range pools {
		n += jt.LockInfo[p.ID]
	}
	return n
}

// holdersOf says what holds the slots of pools: per job type running,
// how many and for how long the longest ran ("export_csv x4 for 11m"),
// from the observations; from the in-progress lists without them. only,
// when set, keeps that job type alone.
func holdersOf(pools []*Pool, workers *workerIndex, now time.Time, only string) []string {
	count := map[string]int64{}
	longest := map[string]time.Duration{}
	observed := false
	for _, p := range pools {
		for _, id := range p.Heartbeat.WorkerIDs {
			w := workers.get(id)
			if w == nil || !w.Busy || only != "" && w.JobName != only {
				continue
			}
			observed = true
			count[w.JobName]++
			if w.StartedAt > 0 {
				longest[w.JobName] = max(longest[w.JobName], now.Sub(time.Unix(w.StartedAt, 0)))
			}
		}
	}
	if !observed {
		for _, p := range pools {
			for job, n := range p.InProgress {
				if only == "" || job == only {
					count[job] += n
				}
			}
		}
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	var out []string
	for i, n := range names {
		if i == explainListMax {
			break
		}
		s := fmt.Sprintf("%s x%d", n, count[n])
		if d, ok := longest[n]; ok {
			s += " for " + ShortAge(d)
		}
		out = append(out, s)
	}
	return out
}

// assessStuck: busy workers of live pools that ran past LongAfter or whose
// last check-in is older than CheckinLimit, while a type their pool serves
// has jobs waiting. One problem per job type the stuck workers run.
func assessStuck(snap *Snapshot, workers *workerIndex, l HealthLimits) []JobProblem {
	queued := map[string]bool{}
	for _, jt := range snap.JobTypes {
		if jt.Queued > 0 && !jt.Paused {
			queued[jt.Name] = true
		}
	}
	if len(queued) == 0 || workers.empty() {
		return nil
	}
	type stuck struct {
		n       int
		longest time.Duration
		why     map[string]int
		waiting map[string]bool
	}
	by := map[string]*stuck{}
	now := snap.RedisTime
	longAfter := snap.LongAfter
	if longAfter <= 0 {
		longAfter = DefaultLongAfter
	}
	for i := range snap.Pools {
		p := &snap.Pools[i]
		if p.Status == StatusDead || p.Heartbeat == nil {
			continue
		}
		var waiting []string
		for _, n := range p.Heartbeat.JobNames {
			if queued[n] {
				waiting = append(waiting, n)
			}
		}
		if len(waiting) == 0 {
			continue
		}
		for _, id := range p.Heartbeat.WorkerIDs {
			w := workers.get(id)
			if w == nil || !w.Busy || w.StartedAt <= 0 {
				continue
			}
			running := max(now.Sub(time.Unix(w.StartedAt, 0)), 0)
			var why string
			switch {
			case w.CheckinAt > 0 && now.Sub(time.Unix(w.CheckinAt, 0)) > l.CheckinLimit:
				why = fmt.Sprintf("no check-in for over %s", FormatAge(l.CheckinLimit))
			case running > longAfter:
				why = fmt.Sprintf("running over --long-after %s", FormatAge(longAfter))
			default:
				continue
			}
			s := by[w.JobName]
			if s == nil {
				s = &stuck{why: map[string]int{}, waiting: map[string]bool{}}
				by[w.JobName] = s
			}
			s.n++
			s.longest = max(s.longest, running)
			s.why[why]++
			for _, n := range waiting {
				s.waiting[n] = true
			}
		}
	}
	var out []JobProblem
	for job, s := range by {
		var whys, waiting []string
		for w, n := range s.why {
			whys = append(whys, fmt.Sprintf("%d %s", n, w))
		}
		sort.Strings(whys)
		for n := range s.waiting {
			waiting = append(waiting, n)
		}
		sort.Strings(waiting)
		out = append(out, JobProblem{Kind: FindingStuck, Job: job, Wait: s.longest, Holders: whys, Waiting: waiting,
			Short: fmt.Sprintf("%s stuck %s", Plural(s.n, "worker", "workers"), ShortAge(s.longest)),
			Detail: fmt.Sprintf("%s busy with it for up to %s (%s) while %s waits",
				Plural(s.n, "worker", "workers"), FormatAge(s.longest), strings.Join(whys, ", "), nameSome(waiting))})
	}
	return out
}

// JobHealthFindings are the problems as findings.
func JobHealthFindings(h *JobHealth) []Finding {
	if h == nil {
		return nil
	}
	out := make([]Finding, 0, len(h.Problems))
	for _, p := range h.Problems {
		out = append(out, Finding{Kind: p.Kind, Subject: p.Job, Detail: p.Detail})
	}
	return out
}

// WithJobHealth is findings (as Findings lists them) with its job health
// findings replaced by h's, where Findings puts them: after the orphans.
func WithJobHealth(findings []Finding, h *JobHealth) []Finding {
	out := make([]Finding, 0, len(findings)+len(h.Problems))
	at := -1
	for _, f := range findings {
		switch f.Kind {
		case FindingFailing, FindingBacklog, FindingStarving, FindingStuck, FindingPausedBacklog, FindingUnserved:
			continue
		case FindingEmptyNamespace, FindingDeadPool, FindingLatePool, FindingDrift, FindingOrphan:
		default:
			if at < 0 {
				at = len(out)
			}
		}
		out = append(out, f)
	}
	if at < 0 {
		at = len(out)
	}
	return slices.Insert(out, at, JobHealthFindings(h)...)
}

// FormatRate prints a rate with at most one decimal: 48, 2.5, 0.3.
func FormatRate(r float64) string {
	if r >= 10 || r == math.Trunc(r) {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// ShortAge is an age in its largest unit alone: 45s, 11m, 3h, 2d.
func ShortAge(d time.Duration) string {
	s := int64(max(d, 0) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 86400:
		return fmt.Sprintf("%dh", s/3600)
	}
	return fmt.Sprintf("%dd", s/86400)
}
