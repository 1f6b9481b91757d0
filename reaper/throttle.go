package reaper

// This file owns throttling a job type: setting <ns>:jobs:<job>:max_concurrency,
// the cap gocraft/work v0.5.1's fetch script reads on every fetch. The plan
// is pure (from a snapshot); its execution is lua/throttle.lua.

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// ErrBadLimit: a throttle's limit is not a positive integer.
var ErrBadLimit = errors.New("the limit must be a positive integer")

// ErrResetNotPools: a reset would write 0 where the journal shows the
// pools wrote another cap before the throttle in force: undo puts that
// back.
var ErrResetNotPools = errors.New("0 is not what the pools wrote")

//go:embed lua/throttle.lua
var throttleLua string

// throttleScript writes max_concurrency; see lua/throttle.lua.
var throttleScript = redis.NewScript(1, throttleLua)

// ThrottlePlan is what a throttle (or its reset) will do to one job type.
type ThrottlePlan struct {
	Namespace string
	Name      string
	// Key is <ns>:jobs:<job>:max_concurrency.
	Key string
	// Reset writes 0 ("no cap"), else New is the cap to write.
	Reset bool
	New   int64
	// Before is max_concurrency as the snapshot read it (0: none); the
	// script re-checks it.
	Before int64
	// Lock, InProgress and Queued are the snapshot's counts.
	Lock, InProgress, Queued int64
	// Pools are the live pools that name the job type: each writes its own
	// setting (which is not in Redis) at its next start.
	Pools []ThrottlePool
	// Throttled is the throttle in force, when the journal read into the
	// snapshot shows one (MarkThrottled).
	Throttled *model.Throttled
}

// ThrottlePool is a live pool that names the job type.
type ThrottlePool struct {
	ID, Host    string
	Concurrency int64
}

// Verb is "throttle" or "throttle --reset".
func (p ThrottlePlan) Verb() string {
	if p.Reset {
		return "throttle --reset"
	}
	return "throttle"
}

// Changes is whether the plan writes anything as the snapshot saw it.
func (p ThrottlePlan) Changes() bool { return p.Before != p.New }

// Finish is how many running jobs of the type finish before a new one
// starts: the lock above the new cap (none without a cap).
func (p ThrottlePlan) Finish() int64 {
	if p.New <= 0 || p.Lock <= p.New {
		return 0
	}
	return p.Lock - p.New
}

// ParseLimit reads a throttle's limit: a positive decimal integer.
func ParseLimit(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("throttle: %q: %w", textsafe.Clean(s), ErrBadLimit)
	}
	return n, nil
}

// NewThrottlePlan works out, from a snapshot, what setting job's cap to n
// (or to 0, no cap, when reset) will do. It is pure. A name that is not in
// known_jobs and that no pool names is refused with ErrUnknownJob (a typo
// would create a key nobody reads); n below 1 without reset with
// ErrBadLimit.
func NewThrottlePlan(snap *model.Snapshot, job string, n int64, reset bool) (ThrottlePlan, error) {
	p := ThrottlePlan{Name: job, Reset: reset, New: n}
	if reset {
		p.New = 0
	}
	if snap == nil {
		return p, errors.New("plan throttle: no snapshot")
	}
	p.Namespace = snap.Namespace
	if job == "" {
		return p, fmt.Errorf("throttle: %w (an empty name)", ErrNoJob)
	}
	if !reset && n < 1 {
		return p, fmt.Errorf("throttle: %d: %w", n, ErrBadLimit)
	}
	keys := redisq.NewKeys(snap.Namespace)
	p.Key = keys.MaxConcurrency(job)
	known := false
	for _, name := range model.JobNames(snap) {
		known = known || name == job
	}
	if !known {
		return p, fmt.Errorf("throttle %q: %w: it is not in %s and no worker pool names it; check the name", textsafe.Clean(job), ErrUnknownJob, textsafe.Clean(keys.KnownJobs()))
	}
	if jt, ok := snap.JobType(job); ok {
		p.Before, p.Lock, p.InProgress, p.Queued = jt.MaxConcurrency, jt.Lock, jt.InProgress, jt.Queued
		p.Throttled = jt.Throttled
	}
	if th := p.Throttled; reset && th != nil && th.Pools != "" && th.Pools != "0" {
		return p, fmt.Errorf("throttle --reset %q: %w: they wrote %s before the throttles up to action %s; `throttle %s %s` puts that back", textsafe.Clean(job), ErrResetNotPools, textsafe.Clean(th.Pools), textsafe.Clean(th.Action), textsafe.Clean(job), textsafe.Clean(th.Pools))
	}
	for _, pool := range snap.Pools {
		if pool.Status == model.StatusDead || pool.Heartbeat == nil {
			continue
		}
		for _, name := range pool.Heartbeat.JobNames {
			if name == job {
				p.Pools = append(p.Pools, ThrottlePool{ID: pool.ID, Host: pool.Heartbeat.Host, Concurrency: pool.Heartbeat.Concurrency})
				break
			}
		}
	}
	return p, nil
}

// The outcomes of a throttle.
const (
	ThrottleDone    = "set"
	ThrottleAlready = "already"
	ThrottleMoved   = "moved"
	ThrottleRefused = "refused"
)

// ThrottleResult is what a throttle did: Status one of the outcomes above,
// Before the key's bytes as the script found them ("" when absent; its
// Redis type when refused).
type ThrottleResult struct {
	Name, Key string
	New       int64
	Status    string
	Before    string
	// Journal is the ID of the action's journal ("" without).
	Journal string
}

// ExecuteThrottle carries out a plan in one script call that re-checks the
// value the plan saw: a key changed since (a pool started, another
// operator) is left alone and reported, a key of another type refuses the
// change with ErrWrongType.
func ExecuteThrottle(ctx context.Context, c redis.Conn, plan ThrottlePlan) (ThrottleResult, error) {
	res := ThrottleResult{Name: plan.Name, Key: plan.Key, New: plan.New}
	v, err := redis.Strings(throttleScript.DoContext(ctx, c, plan.Key, plan.Before, plan.New))
	if err != nil {
		return res, fmt.Errorf("throttle %s: %w", textsafe.Clean(plan.Name), err)
	}
	if len(v) != 2 {
		return res, fmt.Errorf("throttle: unexpected script reply %q", v)
	}
	res.Status, res.Before = v[0], v[1]
	switch res.Status {
	case ThrottleDone, ThrottleAlready:
		return res, nil
	case ThrottleMoved:
		return res, fmt.Errorf("throttle %s: nothing changed: %s holds %q now, not %d as planned; look again and retry", textsafe.Clean(plan.Name), textsafe.Clean(plan.Key), textsafe.Clean(res.Before), plan.Before)
	case ThrottleRefused:
		return res, fmt.Errorf("throttle refused, nothing changed: %s is a %s, not a string: %w", textsafe.Clean(plan.Key), textsafe.Clean(res.Before), ErrWrongType)
	}
	return res, fmt.Errorf("throttle: unexpected script status %q", res.Status)
}
