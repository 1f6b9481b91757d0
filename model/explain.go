// Explain: why a job type is not running, from one snapshot and the few
// facts read beside it (the first members of the retry and scheduled sets,
// the recent deaths, the job type's unique keys). Every check names what it
// read and the command that fixes the cause.

package model

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/shellword"
)

// Cause kinds, in the order Explain checks them.
const (
	CauseUnknown       = "unknown_name"
	CausePaused        = "paused"
	CauseNoLivePool    = "no_live_pool"
	CauseDeadPoolLocks = "dead_pools_hold_lock"
	CauseLockDrift     = "lock_drift"
	CauseSaturated     = "saturated"
	CauseWorkersBusy   = "workers_busy"
	CauseHeldDead      = "held_by_dead_pool"
	CauseOrphaned      = "orphaned"
	CauseWaitingRetry  = "waiting_in_retry"
	CauseUniqueBlocked = "unique_blocked"
	CauseRecentDeaths  = "recent_deaths"
)

// ExplainFacts are what Explain needs beyond the snapshot.
type ExplainFacts struct {
	// Retry and Scheduled are the soonest members of the two sets, up to
	// SetLimit each, ascending by score.
	Retry, Scheduled []SetJob
	// SetLimit is how many members of each set were asked for: a page of
	// that size may not hold every job of the type.
	SetLimit int
	// Dead are the deaths scored within DeadWindow before Redis time,
	// newest first, up to SetLimit.
	Dead       []SetJob
	DeadWindow time.Duration
	// Unique are the type's unique keys with their time to live; nil when
	// they were not scanned (UniqueScanned false).
	Unique        []UniqueKey
	UniqueScanned bool
	// Waiting are the unique keys the jobs waiting in the type's queue
	// hold; QueueRead says the whole queue was read (a long one is not),
	// so that a key outside Waiting has no copy waiting there.
	Waiting   map[string]bool
	QueueRead bool
}

// UniqueKey is a key `<ns>:unique:<job>:<args>`; TTL is negative when the
// key has no expiry.
type UniqueKey struct {
	Key string        `json:"key"`
	TTL time.Duration `json:"-"`
}

// Cause is one reason a job type does not run. Fix is the command line of
// workq-tui (without the program name and connection flags) that removes
// it; nil when no write of workq-tui does, and then FixText says what does.
type Cause struct {
	Kind     string   `json:"kind"`
	Verdict  string   `json:"verdict"`
	Evidence []string `json:"evidence"`
	Fix      []string `json:"fix"`
	FixText  string   `json:"fix_text,omitempty"`
}

// Explanation is Explain's answer for one job type.
type Explanation struct {
	Job string `json:"job"`
	// Running is true when no check found a cause.
	Running bool   `json:"running"`
	Verdict string `json:"verdict"`
	// Facts are the numbers behind the verdict, whatever it is.
	Facts  []string `json:"facts"`
	Causes []Cause  `json:"causes"`
}

// explainListMax is how many pools, jobs or keys one line of evidence names.
const explainListMax = 5

// Explain runs the checks on one job type, in order, and reports every one
// that holds. It is pure: the only clock is snap.RedisTime.
func Explain(snap *Snapshot, f ExplainFacts, job string) Explanation {
	e := Explanation{Job: job, Causes: []Cause{}}
	jt, known := snap.JobType(job)
	var listed []*Pool // pools whose heartbeat names the job
	var live []*Pool
	for i := range snap.Pools {
		p := &snap.Pools[i]
		if p.Heartbeat == nil || !contains(p.Heartbeat.JobNames, job) {
			continue
		}
		listed = append(listed, p)
		if p.Status != StatusDead {
			live = append(live, p)
		}
	}
	if !known && len(listed) == 0 {
		c := Cause{Kind: CauseUnknown, Verdict: fmt.Sprintf("%s is in neither known_jobs nor any heartbeat", job)}
		if close := closeNames(job, JobNames(snap)); len(close) > 0 {
			c.Evidence = append(c.Evidence, "close names: "+strings.Join(close, ", "))
			c.FixText = "check the name: a close name above may be the one meant"
		} else {
			c.FixText = "check the name and the namespace: no pool registers it and nothing enqueued it"
		}
		e.Causes = append(e.Causes, c)
		e.Verdict = c.Verdict
		return e
	}
	if jt == nil {
		jt = &JobType{Name: job}
	}
	ix := newExplainIndex(snap)
	e.Facts = jobFacts(snap, jt, live)
	e.check(explainFailing(snap, jt))
	e.check(explainPaused(snap, jt))
	e.check(explainNoLivePool(jt, listed, live))
	e.check(explainLock(snap, ix, jt))
	e.check(explainWorkersBusy(snap, jt, live))
	e.check(explainStarving(snap, jt, &e))
	e.check(explainStuck(snap, jt))
	e.check(explainHeld(ix, jt))
	e.check(explainOrphaned(ix, jt))
	e.check(explainLeaked(snap, jt))
	e.check(explainRetry(snap, f, jt))
	e.check(explainUnique(snap, f, jt))
	if healthProblem(snap, jt.Name, FindingFailing) == nil {
		// A failing type's cause says it with the thresholds already.
		e.check(explainDeaths(snap.RedisTime, f, jt, len(live) > 0))
	}
	e.check(explainBacklog(snap, jt))
	e.Running = len(e.Causes) == 0
	if e.Running {
		e.Verdict = fmt.Sprintf("%s is running normally", job)
	} else {
		e.Verdict = e.Causes[0].Verdict
		if n := len(e.Causes) - 1; n > 0 {
			more := "one more cause"
			if n > 1 {
				more = fmt.Sprintf("%d more causes", n)
			}
			e.Verdict += " (and " + more + ")"
		}
	}
	return e
}

func (e *Explanation) check(c *Cause) {
	if c != nil {
		e.Causes = append(e.Causes, *c)
	}
}

func jobFacts(snap *Snapshot, jt *JobType, live []*Pool) []string {
	line := fmt.Sprintf("queued %d", jt.Queued)
	if jt.Latency != nil {
		line += fmt.Sprintf(" (oldest waiting %s)", FormatAge(*jt.Latency))
	}
	line += fmt.Sprintf(", in progress %d", jt.InProgress)
	if jt.Leaked > 0 {
		line += fmt.Sprintf(" (%d leaked)", jt.Leaked)
	}
	line += fmt.Sprintf(", lock %d", jt.Lock)
	if jt.MaxConcurrency > 0 {
		line += fmt.Sprintf(" of max_concurrency %d", jt.MaxConcurrency)
	} else {
		line += " (no max_concurrency)"
	}
	var workers int64
	for _, p := range live {
		workers += p.Heartbeat.Concurrency
	}
	facts := []string{line, fmt.Sprintf("served by %s with %s",
		Plural(len(live), "live pool", "live pools"), Plural(workers, "worker", "workers"))}
	if jt.Throttled != nil {
		facts = append(facts, throttledFact(*jt.Throttled))
	}
	return facts
}

func explainPaused(snap *Snapshot, jt *JobType) *Cause {
	if !jt.Paused {
		return nil
	}
	c := &Cause{Kind: CausePaused, Verdict: fmt.Sprintf("%s is paused", jt.Name),
		Evidence: []string{fmt.Sprintf("the key jobs:%s:paused exists: no pool takes its jobs; %d queued", jt.Name, jt.Queued)},
		Fix:      fixWords([]string{"unpause"}, jt.Name)}
	if d := pausedEvidence(snap, jt.Name); d != "" {
		c.Evidence = append(c.Evidence, d)
	}
	return c
}

func explainNoLivePool(jt *JobType, listed, live []*Pool) *Cause {
	if len(live) > 0 {
		return nil
	}
	c := &Cause{Kind: CauseNoLivePool, Verdict: fmt.Sprintf("no live pool serves %s", jt.Name),
		FixText: fmt.Sprintf("start a worker pool that registers %s; its %d queued jobs wait until one does", jt.Name, jt.Queued)}
	if len(listed) == 0 {
		c.Evidence = []string{"no heartbeat lists it in job_names"}
		return c
	}
	var ids []string
	for _, p := range listed {
		ids = append(ids, p.ID)
	}
	c.Evidence = []string{"only dead pools listed it: " + nameSome(ids)}
	return c
}

// explainLock tells the three reasons of a lock at max_concurrency apart:
// slots held by dead pools, drift, or every slot running a job.
func explainLock(snap *Snapshot, ix *explainIndex, jt *JobType) *Cause {
	if jt.MaxConcurrency <= 0 || jt.Lock < jt.MaxConcurrency {
		return nil
	}
	at := fmt.Sprintf("lock %d at max_concurrency %d", jt.Lock, jt.MaxConcurrency)
	var deadIDs []string
	var deadHeld int64
	ids := make([]string, 0, len(jt.LockInfo))
	for id := range jt.LockInfo {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if ix.deadIDs[id] && jt.LockInfo[id] > 0 {
			deadIDs = append(deadIDs, id)
			deadHeld += jt.LockInfo[id]
		}
	}
	if len(deadIDs) > 0 {
		return &Cause{Kind: CauseDeadPoolLocks, Verdict: fmt.Sprintf("dead pools hold %d of %s's %d slots", deadHeld, jt.Name, jt.MaxConcurrency),
			Evidence: []string{at, "lock_info names dead pools: " + nameSome(deadIDs)},
			Fix:      fixWords([]string{"reap"}, deadIDs...)}
	}
	if jt.Lock > jt.LockInfoTotal || jt.Lock > jt.InProgress {
		return &Cause{Kind: CauseLockDrift, Verdict: fmt.Sprintf("%s's lock has drifted to max_concurrency", jt.Name),
			Evidence: []string{at, fmt.Sprintf("but lock_info totals %d and the in-progress lists hold %d", jt.LockInfoTotal, jt.InProgress)},
			Fix:      fixWords([]string{"repair-locks"}, jt.Name)}
	}
	if jt.Queued == 0 {
		// Every slot busy and nothing waiting: running at its cap.
		return nil
	}
	c := &Cause{Kind: CauseSaturated, Verdict: fmt.Sprintf("%s is saturated: every one of its %d slots runs a job", jt.Name, jt.MaxConcurrency),
		Evidence: []string{at + ", all held by live pools"},
		FixText:  "wait for the running jobs, or raise MaxConcurrency in the pools' JobOptions (each pool start rewrites it)"}
	n := 0
	for _, w := range ix.busyWorkers() {
		if w.JobName != jt.Name || n == explainListMax {
			continue
		}
		n++
		line := fmt.Sprintf("job %s on worker %s of pool %s", w.JobID, w.WorkerID, w.PoolID)
		if w.Running != nil {
			line += " running for " + FormatAge(*w.Running)
			if w.LongRunning(snap.LongAfter) {
				line += " (long-running)"
			}
		}
		switch {
		case w.HasCheckin && w.CheckinAt > 0:
			line += fmt.Sprintf(", checked in %s ago: %q", FormatAge(snap.RedisTime.Sub(time.Unix(w.CheckinAt, 0))), w.Checkin)
		case w.HasCheckin:
			line += fmt.Sprintf(", checked in: %q", w.Checkin)
		default:
			line += ", no check-in"
		}
		c.Evidence = append(c.Evidence, line)
	}
	return c
}

func explainWorkersBusy(snap *Snapshot, jt *JobType, live []*Pool) *Cause {
	if jt.Queued == 0 || len(live) == 0 || jt.Paused || snap.Workers == nil {
		return nil
	}
	if jt.MaxConcurrency > 0 && jt.Lock >= jt.MaxConcurrency {
		return nil
	}
	busy := map[string]*Worker{}
	for i := range snap.Workers {
		if snap.Workers[i].Busy {
			busy[snap.Workers[i].WorkerID] = &snap.Workers[i]
		}
	}
	others := map[string]int{}
	total := 0
	for _, p := range live {
		for _, id := range p.Heartbeat.WorkerIDs {
			w := busy[id]
			if w == nil || w.JobName == jt.Name {
				return nil
			}
			others[w.JobName]++
			total++
		}
	}
	if total == 0 {
		return nil
	}
	names := make([]string, 0, len(others))
	for n := range others {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if others[names[i]] != others[names[j]] {
			return others[names[i]] > others[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for i, n := range names {
		if i == explainListMax {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", n, others[n]))
	}
	return &Cause{Kind: CauseWorkersBusy, Verdict: fmt.Sprintf("every worker of the pools serving %s is busy with other job types", jt.Name),
		Evidence: []string{fmt.Sprintf("%s busy: %s", Plural(total, "worker", "workers"), strings.Join(parts, ", "))},
		FixText:  "wait, or start more workers that register " + jt.Name}
}

func explainHeld(ix *explainIndex, jt *JobType) *Cause {
	var ids []string
	var n int64
	for _, p := range ix.dead {
		if p.InProgress[jt.Name] > 0 {
			ids = append(ids, p.ID)
			n += p.InProgress[jt.Name]
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return &Cause{Kind: CauseHeldDead, Verdict: fmt.Sprintf("%s of %s held by dead pools", Plural(n, "job", "jobs"), jt.Name),
		Evidence: []string{"in-progress lists of dead pools: " + nameSome(ids)},
		Fix:      fixWords([]string{"reap"}, ids...)}
}

func explainOrphaned(ix *explainIndex, jt *JobType) *Cause {
	var keys []string
	var n int64
	for _, o := range ix.orphans[jt.Name] {
		keys = append(keys, o.Key)
		n += o.Length
	}
	if len(keys) == 0 {
		return nil
	}
	return &Cause{Kind: CauseOrphaned, Verdict: fmt.Sprintf("%s of %s held in orphaned in-progress lists", Plural(n, "job", "jobs"), jt.Name),
		Evidence: []string{"lists of pools not in worker_pools: " + nameSome(keys)},
		Fix:      fixWords([]string{"requeue"}, keys...)}
}

func explainRetry(snap *Snapshot, f ExplainFacts, jt *JobType) *Cause {
	if jt.Queued > 0 {
		return nil
	}
	retry := ofJob(f.Retry, jt.Name)
	if len(retry) == 0 {
		return nil
	}
	c := &Cause{Kind: CauseWaitingRetry, Verdict: fmt.Sprintf("%s's queue is empty while %s wait in retry", jt.Name, Plural(len(retry), "job", "jobs")),
		Fix: append([]string{"jobs", "retry", "requeue", "--all"}, shellword.Flag("job", jt.Name)...)}
	c.Evidence = append(c.Evidence, "the next is due "+dueIn(retry[0].Score, snap.RedisTime))
	if len(f.Retry) >= f.SetLimit && f.SetLimit > 0 {
		c.Evidence = append(c.Evidence, fmt.Sprintf("counted among the %d soonest members of the retry set", f.SetLimit))
	}
	if sched := ofJob(f.Scheduled, jt.Name); len(sched) > 0 {
		c.Evidence = append(c.Evidence, fmt.Sprintf("%s scheduled, the next %s", Plural(len(sched), "job", "jobs"), dueIn(sched[0].Score, snap.RedisTime)))
	}
	return c
}

// explainUnique reports unique keys of the type while no copy of the type
// waits in its queue or the scheduled set: each key refuses a new enqueue
// with its args although nothing will run.
func explainUnique(snap *Snapshot, f ExplainFacts, jt *JobType) *Cause {
	if len(f.Unique) == 0 || jt.Queued > 0 && !f.QueueRead {
		return nil
	}
	// A key a waiting copy holds is that copy's; the others block with
	// nothing behind them (gocraft/work master's DeleteScheduledJob, for
	// one, leaves an EnqueueUniqueByKey key behind), whatever else waits.
	prefix := snap.Namespace
	if !strings.HasSuffix(prefix, ":") {
		prefix += ":"
	}
	held := map[string]bool{}
	for k := range f.Waiting {
		held[k] = true
	}
	for _, s := range ofJob(f.Scheduled, jt.Name) {
		if s.Job == nil {
			continue
		}
		if k, ok, err := s.Job.UniqueKeyIn(prefix); ok && err == nil {
			held[k] = true
		}
	}
	if sched := ofJob(f.Scheduled, jt.Name); len(sched) > 0 && len(f.Scheduled) >= f.SetLimit && f.SetLimit > 0 {
		return nil // the scheduled set was read in part: a copy may wait beyond
	}
	var blocking []UniqueKey
	for _, u := range f.Unique {
		if !held[u.Key] {
			blocking = append(blocking, u)
		}
	}
	if len(blocking) == 0 {
		return nil
	}
	c := &Cause{Kind: CauseUniqueBlocked, Verdict: fmt.Sprintf("%s of %s block new enqueues while no copy waits", Plural(len(blocking), "unique key", "unique keys"), jt.Name)}
	var soonest time.Duration = -1
	var keys []string
	for _, u := range blocking {
		keys = append(keys, u.Key)
		if u.TTL >= 0 && (soonest < 0 || u.TTL < soonest) {
			soonest = u.TTL
		}
	}
	if soonest >= 0 {
		c.Evidence = append(c.Evidence, "the soonest expires in "+FormatAge(soonest))
	} else {
		c.Evidence = append(c.Evidence, "none of them expires")
	}
	c.Evidence = append(c.Evidence, "keys: "+nameSome(keys))
	// The keys' names end in a newline byte that no one can paste into
	// redis-cli, and every refused enqueue renews their time to live:
	// delete-unique takes their last part and adds the newline itself.
	own := prefix + "unique:" + jt.Name + ":"
	operands := []string{jt.Name}
	for _, k := range keys {
		if args, ok := strings.CutPrefix(k, own); ok && args != "" {
			operands = append(operands, strings.TrimSuffix(args, "\n"))
		}
	}
	if len(operands) > 1 {
		// A job name or key read from Redis that begins with '-' goes
		// after "--", never where it would be read as a flag.
		c.Fix = fixWords([]string{"delete-unique"}, operands...)
		c.FixText = "EnqueueUnique with these args is refused until the keys go, and each refused enqueue renews their 24h time to live"
	} else {
		c.FixText = "delete the keys or wait until they expire: EnqueueUnique with these args is refused until then"
	}
	return c
}

// explainDeaths reports the type's recent deaths; its fix requeues them,
// with --force when no live pool serves the type (a requeue refuses that
// without it).
func explainDeaths(now time.Time, f ExplainFacts, jt *JobType, served bool) *Cause {
	dead := ofJob(f.Dead, jt.Name)
	if len(dead) == 0 {
		return nil
	}
	errs := map[string]int{}
	for _, d := range dead {
		errs[NormalizeError(d.Job.LastErr)]++
	}
	top, topN := "", 0
	for e, n := range errs {
		if n > topN || n == topN && e < top {
			top, topN = e, n
		}
	}
	c := &Cause{Kind: CauseRecentDeaths, Verdict: fmt.Sprintf("%s of %s died in the last %s", Plural(len(dead), "job", "jobs"), jt.Name, FormatAge(f.DeadWindow)),
		Evidence: []string{fmt.Sprintf("the last died %s ago", FormatAge(max(now.Sub(time.Unix(ScoreSeconds(dead[0].Score), 0)), 0))),
			fmt.Sprintf("top error (%d of %d): %s", topN, len(dead), top)},
		Fix:     append([]string{"jobs", "dead", "requeue", "--all"}, shellword.Flag("job", jt.Name)...),
		FixText: "fix the error first: requeued, they run again"}
	if !served {
		c.Fix = append(c.Fix, "--force")
		c.FixText = fmt.Sprintf("fix the error first; no live pool serves %s, so --force pushes them onto its queue, where they wait until a pool that registers it starts", jt.Name)
	}
	if len(f.Dead) >= f.SetLimit && f.SetLimit > 0 {
		c.Evidence = append(c.Evidence, fmt.Sprintf("counted among the %d latest deaths", f.SetLimit))
	}
	return c
}

// ofJob returns the members of a set page that are jobs of the given name.
func ofJob(page []SetJob, job string) []SetJob {
	var out []SetJob
	for _, sj := range page {
		if sj.Job != nil && sj.Job.Name == job {
			out = append(out, sj)
		}
	}
	return out
}

func dueIn(score float64, now time.Time) string {
	d := time.Unix(int64(score), 0).Sub(now)
	if d <= 0 {
		return fmt.Sprintf("now (%s overdue)", FormatAge(-d))
	}
	return "in " + FormatAge(d)
}

func nameSome(s []string) string {
	if len(s) <= explainListMax {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:explainListMax], ", ") + fmt.Sprintf(" and %d more", len(s)-explainListMax)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// closeNames returns the names within an edit distance of 2 of name (or
// that contain it or that it contains, ignoring case), closest first.
func closeNames(name string, names []string) []string {
	type cand struct {
		n string
		d int
	}
	var cs []cand
	low := strings.ToLower(name)
	for _, n := range names {
		ln := strings.ToLower(n)
		d := EditDistance(low, ln)
		if d > 2 && !(len(low) >= 3 && (strings.Contains(ln, low) || strings.Contains(low, ln))) {
			continue
		}
		cs = append(cs, cand{n, d})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].n < cs[j].n
	})
	var out []string
	for i, c := range cs {
		if i == explainListMax {
			break
		}
		out = append(out, c.n)
	}
	return out
}
