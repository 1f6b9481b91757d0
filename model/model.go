// Package model holds the plain data of a gocraft/work namespace as workq-tui
// sees it, and the pure functions that classify it (alive, late, dead, orphan,
// drift, long-running). It knows nothing of Redis or of the terminal.
package model

import "time"

// Status is a worker pool's health as judged from its heartbeat.
type Status string

// The statuses of a pool.
const (
	StatusAlive Status = "alive"
	StatusLate  Status = "late"
	StatusDead  Status = "dead"
)

// DefaultDeadAfter is upstream's cut-off: two missed 5 s beats.
const DefaultDeadAfter = 10 * time.Second

// LateAfter is when a pool counts as late: one 5 s beat missed, plus slack
// for heartbeat timestamps being whole seconds.
const LateAfter = 7 * time.Second

// Heartbeat is the hash `<ns>:worker_pools:<pool>` as a live pool writes it
// every 5 s.
type Heartbeat struct {
	HeartbeatAt int64    `json:"heartbeat_at"` // unix seconds
	StartedAt   int64    `json:"started_at"`   // unix seconds
	Host        string   `json:"host"`
	PID         int64    `json:"pid"`
	Concurrency int64    `json:"concurrency"`
	JobNames    []string `json:"job_names"`
	WorkerIDs   []string `json:"worker_ids"`
	// HeartbeatAtMissing is set when the hash exists without a heartbeat_at
	// field: upstream treats that pool like one without a heartbeat.
	HeartbeatAtMissing bool `json:"-"`
	// HeartbeatAtMalformed is set when heartbeat_at is not a whole number:
	// the age is unknown, so the pool is never classed dead from it.
	HeartbeatAtMalformed bool `json:"-"`
}

// Pool is one member of `<ns>:worker_pools`.
type Pool struct {
	ID string `json:"id"`
	// Heartbeat is nil when the heartbeat hash is missing.
	Heartbeat *Heartbeat `json:"heartbeat"`
	Status    Status     `json:"status"`
	// HeartbeatAge is Redis time minus heartbeat_at; nil when the heartbeat is
	// missing or its heartbeat_at could not be read.
	HeartbeatAge *time.Duration `json:"-"`
	// InProgress is the length of `<ns>:jobs:<job>:<pool>:inprogress` per job
	// name; only non-empty lists are listed.
	InProgress map[string]int64 `json:"in_progress"`
	// LockInfo is this pool's field in `<ns>:jobs:<job>:lock_info` per job
	// name; only present fields are listed.
	LockInfo map[string]int64 `json:"lock_info"`
	// Warnings describe data of this pool that could not be read as expected.
	Warnings []string `json:"warnings,omitempty"`
}

// InProgressTotal is the number of jobs the pool holds over all job types.
func (p Pool) InProgressTotal() int64 {
	var n int64
	for _, v := range p.InProgress {
		n += v
	}
	return n
}

// LocksHeld is the sum of this pool's lock_info entries.
func (p Pool) LocksHeld() int64 {
	var n int64
	for _, v := range p.LockInfo {
		n += v
	}
	return n
}

// JobType is one job name with its queue and lock keys.
type JobType struct {
	Name   string `json:"name"`
	Queued int64  `json:"queued"`
	// OldestEnqueuedAt is `t` of the job at index -1 of the queue (unix
	// seconds), 0 when the queue is empty or that job is unreadable.
	OldestEnqueuedAt int64 `json:"-"`
	// Latency is Redis time minus OldestEnqueuedAt; nil when unknown.
	Latency *time.Duration `json:"-"`
	// InProgress is the total length of this type's in-progress lists of the
	// pools in the set (orphans are reported apart).
	InProgress int64 `json:"in_progress"`
	Lock       int64 `json:"lock"`
	// LockInfo is the whole lock_info hash: pool ID to count.
	LockInfo       map[string]int64 `json:"lock_info"`
	LockInfoTotal  int64            `json:"lock_info_total"`
	MaxConcurrency int64            `json:"max_concurrency"`
	Paused         bool             `json:"paused"`
	Drift          bool             `json:"drift"`
	// Leaked is how many of InProgress are leaked entries (see
	// LeakedEntry): they are left out of the drift rule.
	Leaked   int64    `json:"leaked,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Throttled is set while a throttle recorded in the journal is in
	// force (see Throttled); nil otherwise or when no journal was read.
	Throttled *Throttled `json:"throttled,omitempty"`
}

// InProgressList is an in-progress list found by key, used for orphans: lists
// whose pool is not in `<ns>:worker_pools`.
type InProgressList struct {
	Key     string `json:"key"`
	JobName string `json:"job_name"`
	PoolID  string `json:"pool_id"`
	Length  int64  `json:"length"`
}

// Finding kinds.
const (
	FindingDeadPool = "dead_pool"
	FindingLatePool = "late_pool"
	FindingDrift    = "drift"
	FindingOrphan   = "orphan"
	// FindingLongRunning is a busy worker whose job has run longer than
	// the snapshot's LongAfter. It does not count in HasProblems.
	FindingLongRunning = "long_running"
	FindingWarning     = "warning"
)

// Finding is something an operator should look at.
type Finding struct {
	Kind    string `json:"kind"`
	Subject string `json:"subject"`
	Detail  string `json:"detail"`
}

// Snapshot is one read of a namespace.
type Snapshot struct {
	Namespace string    `json:"namespace"`
	RedisTime time.Time `json:"-"`
	// DeadAfter is the cut-off the statuses were computed with.
	DeadAfter time.Duration `json:"-"`
	Pools     []Pool        `json:"pools"`
	JobTypes  []JobType     `json:"job_types"`
	// LongAfter is how long a job may run before it is a long_running
	// finding (DefaultLongAfter when Analyze finds it not positive).
	LongAfter time.Duration `json:"-"`
	// Workers are the workers named by the heartbeats of the pools in the
	// set, busy or idle, ordered by pool ID then worker ID. Nil when the
	// read did not ask for them (the screen's regular poll outside the
	// Workers view); a read that did and found none leaves it empty, not
	// nil.
	Workers []Worker `json:"-"`
	// Leaked are the in-progress entries whose job already ended (see
	// LeakedEntry), read where a list holds more than its pool counts.
	Leaked []LeakedEntry `json:"-"`
	// LeakAware says the read looked for leaked entries wherever a list
	// holds more than its pool counts (a snapshot and a sweep do, the
	// screen's poll does not): Leaked is then all there is.
	LeakAware bool `json:"-"`
	// Variant is which build wrote the namespace (see JudgeVariant); nil
	// when it was not read.
	Variant *Variant `json:"-"`
	// Orphans are filled by the orphan scan; nil when no scan has run.
	Orphans  []InProgressList `json:"orphans"`
	Findings []Finding        `json:"findings"`
	// Sets are the sizes of the retry, scheduled and dead sets; a set whose
	// key has the wrong type counts 0 and gives a warning.
	Sets SetCounts `json:"sets"`
	// Warnings about the namespace as a whole (a set of the wrong type, ...).
	Warnings []string `json:"warnings,omitempty"`
	// Search is the look for namespaces that hold gocraft/work keys on
	// the database, made by a reader that found this one empty (see
	// EmptyNamespace); nil when none was made. With it, Findings reports
	// the empty namespace.
	Search *NamespaceSearch `json:"-"`
	// Health is what Redis says of its own safety for the queue (see
	// HealthFindings); nil when it was not read.
	Health *RedisHealth `json:"-"`
	// Jobs is the job health (AssessJobs) when it was judged; nil
	// otherwise. Findings lists its problems.
	Jobs *JobHealth `json:"-"`
	// Cost is what the read cost Redis, when it was measured (the
	// screen's polls); nil otherwise.
	Cost *ReadCost `json:"-"`
}

// SetCounts are the sizes (ZCARD) of the three job sets.
type SetCounts struct {
	Retry     int64 `json:"retry"`
	Scheduled int64 `json:"scheduled"`
	Dead      int64 `json:"dead"`
}

// Of returns the size of one set.
func (c SetCounts) Of(s SetName) int64 {
	switch s {
	case SetRetry:
		return c.Retry
	case SetScheduled:
		return c.Scheduled
	case SetDead:
		return c.Dead
	}
	return 0
}

// Pool returns the pool with the given ID.
func (s *Snapshot) Pool(id string) (*Pool, bool) {
	for i := range s.Pools {
		if s.Pools[i].ID == id {
			return &s.Pools[i], true
		}
	}
	return nil, false
}

// JobType returns the job type with the given name.
func (s *Snapshot) JobType(name string) (*JobType, bool) {
	for i := range s.JobTypes {
		if s.JobTypes[i].Name == name {
			return &s.JobTypes[i], true
		}
	}
	return nil, false
}

// DeadPools returns the IDs of the dead pools, in snapshot order.
func (s *Snapshot) DeadPools() []string {
	var ids []string
	for _, p := range s.Pools {
		if p.Status == StatusDead {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// HasHealthFindings reports whether the snapshot has a Redis health
// finding: what makes `workq-tui snapshot --strict` exit 3.
func (s *Snapshot) HasHealthFindings() bool {
	return len(HealthFindings(s.Health, "", s.RedisTime)) > 0
}

// HasProblems reports whether the snapshot has dead pools, drift, orphans,
// an empty namespace or a job health problem: what makes `workq-tui
// snapshot` exit non-zero.
func (s *Snapshot) HasProblems() bool {
	for _, f := range s.Findings {
		if IsProblem(f.Kind) {
			return true
		}
	}
	return false
}

// IsProblem reports whether a finding of the kind counts in HasProblems.
func IsProblem(kind string) bool {
	switch kind {
	case FindingDeadPool, FindingDrift, FindingOrphan, FindingEmptyNamespace, FindingOtherLayout,
		FindingFailing, FindingBacklog, FindingStarving, FindingStuck, FindingPausedBacklog, FindingUnserved:
		return true
	}
	return false
}
