// Classification of a snapshot: pool status and heartbeat age, job type
// drift and latency, workers' running times, the order of pools, and the
// findings.

package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Classify applies upstream's rule with the given cut-off: a pool is dead
// when its heartbeat is missing (or has no heartbeat_at) or when heartbeat_at
// is deadAfter or more in the past; late when it is more than LateAfter in
// the past; alive otherwise. A heartbeat_at that is not a number leaves the
// age unknown and the pool late, never dead: reaping on a value that cannot
// be read would risk running jobs twice.
func Classify(hb *Heartbeat, now time.Time, deadAfter time.Duration) Status {
	if hb == nil || hb.HeartbeatAtMissing {
		return StatusDead
	}
	if hb.HeartbeatAtMalformed {
		return StatusLate
	}
	if hb.HeartbeatAt > now.Unix() {
		// A beat from the future (a skewed clock, or garbage such as
		// 9223372036854775807, which overflows time.Unix(...).Add below
		// into the past) is not a dead pool.
		return StatusAlive
	}
	age := HeartbeatAge(hb, now)
	// Upstream: alive while heartbeat_at + deadTime is after now.
	if !time.Unix(hb.HeartbeatAt, 0).Add(deadAfter).After(now) {
		return StatusDead
	}
	if age > LateAfter {
		return StatusLate
	}
	return StatusAlive
}

// HeartbeatAge is now minus heartbeat_at.
func HeartbeatAge(hb *Heartbeat, now time.Time) time.Duration {
	return now.Sub(time.Unix(hb.HeartbeatAt, 0))
}

// Drifted reports whether a job type's three counters disagree: lock, the sum
// of lock_info and the total length of its in-progress lists.
func Drifted(lock, lockInfoTotal, inProgress int64) bool {
	return lock != lockInfoTotal || lockInfoTotal != inProgress
}

// Analyze fills in everything that follows from the raw data of a snapshot:
// each pool's status and heartbeat age, each job type's in-progress total
// (over the pools in the set), lock_info total, latency and drift, and the
// findings; each busy worker's running time (snap.LongAfter is set to
// DefaultLongAfter when not positive). Pools are ordered dead first, then late, then alive, each group
// by heartbeat age (oldest first) then ID; job types by name. It is pure: the
// only clock is snap.RedisTime.
func Analyze(snap *Snapshot, deadAfter time.Duration) {
	now := snap.RedisTime
	snap.DeadAfter = deadAfter
	for i := range snap.Pools {
		p := &snap.Pools[i]
		p.Status = Classify(p.Heartbeat, now, deadAfter)
		p.HeartbeatAge = nil
		if p.Heartbeat != nil && !p.Heartbeat.HeartbeatAtMissing && !p.Heartbeat.HeartbeatAtMalformed {
			age := HeartbeatAge(p.Heartbeat, now)
			p.HeartbeatAge = &age
		}
	}
	sortPools(snap.Pools)

	inProgress := map[string]int64{}
	for _, p := range snap.Pools {
		for job, n := range p.InProgress {
			inProgress[job] += n
		}
	}
	for i := range snap.JobTypes {
		jt := &snap.JobTypes[i]
		jt.InProgress = inProgress[jt.Name]
		jt.LockInfoTotal = 0
		for _, n := range jt.LockInfo {
			jt.LockInfoTotal += n
		}
		jt.Latency = nil
		if jt.Queued > 0 && jt.OldestEnqueuedAt > 0 {
			lat := now.Sub(time.Unix(jt.OldestEnqueuedAt, 0))
			if lat < 0 {
				lat = 0
			}
			jt.Latency = &lat
		}
		jt.Leaked = LeakedCount(snap.Leaked, jt.Name, "")
		jt.Drift = Drifted(jt.Lock, jt.LockInfoTotal, jt.InProgress-jt.Leaked)
	}
	sort.SliceStable(snap.JobTypes, func(i, j int) bool { return snap.JobTypes[i].Name < snap.JobTypes[j].Name })

	if snap.LongAfter <= 0 {
		snap.LongAfter = DefaultLongAfter
	}
	AnalyzeWorkers(snap.Workers, now)
	snap.Findings = Findings(snap)
}

func statusRank(s Status) int {
	switch s {
	case StatusDead:
		return 0
	case StatusLate:
		return 1
	default:
		return 2
	}
}

// sortPools orders pools by poolLess, stably, in place. It sorts their
// positions and then moves each pool once, rather than moving the pools
// themselves (large structs) at every swap.
func sortPools(pools []Pool) {
	idx := make([]int, len(pools))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case poolLess(&pools[a], &pools[b]):
			return -1
		case poolLess(&pools[b], &pools[a]):
			return 1
		}
		return 0
	})
	orig := slices.Clone(pools)
	for i, j := range idx {
		pools[i] = orig[j]
	}
}

func poolLess(a, b *Pool) bool {
	if ra, rb := statusRank(a.Status), statusRank(b.Status); ra != rb {
		return ra < rb
	}
	// A missing age (no heartbeat) sorts as the oldest.
	switch {
	case a.HeartbeatAge == nil && b.HeartbeatAge != nil:
		return true
	case a.HeartbeatAge != nil && b.HeartbeatAge == nil:
		return false
	case a.HeartbeatAge != nil && b.HeartbeatAge != nil && *a.HeartbeatAge != *b.HeartbeatAge:
		return *a.HeartbeatAge > *b.HeartbeatAge
	}
	return a.ID < b.ID
}

// Findings lists what an operator should look at, in a stable order: an
// empty namespace (when snap.Search is set), dead pools, late pools,
// drifted job types, orphans, job health problems (snap.Jobs), long-running
// jobs (longest first), Redis health, then warnings.
func Findings(snap *Snapshot) []Finding {
	var out []Finding
	if snap.Search != nil && EmptyNamespace(snap) {
		out = append(out, EmptyNamespaceFinding(snap.Namespace, *snap.Search))
	}
	for _, p := range snap.Pools {
		if p.Status != StatusDead {
			continue
		}
		out = append(out, Finding{Kind: FindingDeadPool, Subject: p.ID, Detail: deadDetail(p, snap.DeadAfter)})
	}
	for _, p := range snap.Pools {
		if p.Status != StatusLate {
			continue
		}
		detail := "heartbeat_at is not a number"
		if p.HeartbeatAge != nil {
			detail = fmt.Sprintf("last heartbeat %s ago", FormatAge(*p.HeartbeatAge))
		}
		out = append(out, Finding{Kind: FindingLatePool, Subject: p.ID, Detail: detail})
	}
	for _, jt := range snap.JobTypes {
		if !jt.Drift {
			continue
		}
		detail := fmt.Sprintf("lock %d, lock_info total %d, in progress %d", jt.Lock, jt.LockInfoTotal, jt.InProgress)
		if jt.MaxConcurrency > 0 && jt.Lock >= jt.MaxConcurrency && jt.InProgress < jt.MaxConcurrency {
			detail += fmt.Sprintf("; lock at max_concurrency %d blocks every worker", jt.MaxConcurrency)
		}
		out = append(out, Finding{Kind: FindingDrift, Subject: jt.Name, Detail: detail})
	}
	out = append(out, LeakedFindings(snap.Leaked)...)
	if f, ok := VariantFinding(snap.Namespace, snap.Variant); ok {
		out = append(out, f)
	}
	for _, o := range snap.Orphans {
		out = append(out, Finding{Kind: FindingOrphan, Subject: o.Key,
			Detail: fmt.Sprintf("%d jobs of %s held by pool %s, which is not in the worker_pools set", o.Length, o.JobName, o.PoolID)})
	}
	out = append(out, JobHealthFindings(snap.Jobs)...)
	if snap.LongAfter > 0 {
		long := sortedWorkers(snap.Workers, func(w *Worker) bool { return w.LongRunning(snap.LongAfter) })
		for _, w := range long {
			out = append(out, Finding{Kind: FindingLongRunning, Subject: w.WorkerID,
				Detail: fmt.Sprintf("job %s %s of pool %s running for %s (over %s)",
					w.JobName, w.JobID, w.PoolID, FormatAge(*w.Running), FormatAge(snap.LongAfter))})
		}
	}
	out = append(out, HealthFindings(snap.Health, "redis", snap.RedisTime)...)
	for _, w := range snap.Warnings {
		out = append(out, Finding{Kind: FindingWarning, Subject: snap.Namespace, Detail: w})
	}
	for _, p := range snap.Pools {
		for _, w := range p.Warnings {
			out = append(out, Finding{Kind: FindingWarning, Subject: p.ID, Detail: w})
		}
	}
	for _, jt := range snap.JobTypes {
		for _, w := range jt.Warnings {
			out = append(out, Finding{Kind: FindingWarning, Subject: jt.Name, Detail: w})
		}
	}
	for _, wk := range snap.Workers {
		for _, w := range wk.Warnings {
			out = append(out, Finding{Kind: FindingWarning, Subject: wk.WorkerID, Detail: w})
		}
	}
	return out
}

func deadDetail(p Pool, deadAfter time.Duration) string {
	var why string
	switch {
	case p.Heartbeat == nil:
		why = "heartbeat missing"
	case p.Heartbeat.HeartbeatAtMissing:
		why = "heartbeat has no heartbeat_at"
	case p.HeartbeatAge != nil:
		why = fmt.Sprintf("no heartbeat for %s (cut-off %s)", FormatAge(*p.HeartbeatAge), FormatAge(deadAfter))
	default:
		why = "dead"
	}
	return fmt.Sprintf("%s; %d jobs in progress", why, p.InProgressTotal())
}

// JobNames returns the union of the job names known to the snapshot: every
// job type, and every job name in a heartbeat, sorted.
func JobNames(snap *Snapshot) []string {
	set := map[string]struct{}{}
	for _, jt := range snap.JobTypes {
		set[jt.Name] = struct{}{}
	}
	for _, p := range snap.Pools {
		if p.Heartbeat != nil {
			for _, n := range p.Heartbeat.JobNames {
				set[n] = struct{}{}
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// SplitList splits a comma-joined heartbeat field, dropping empty parts.
func SplitList(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
