package reaper

// This file owns pausing and unpausing job types: the plan (pure, from a
// snapshot) and its execution by lua/pause.lua.

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// ErrNoJob: no job type given to pause or unpause (or an empty name). A
// name that is not in known_jobs and that no pool names is ErrUnknownJob.
var ErrNoJob = errors.New("no job type given")

//go:embed lua/pause.lua
var pauseLua string

// pauseScript sets or deletes pause keys; see lua/pause.lua.
var pauseScript = redis.NewScript(-1, pauseLua)

// PausePlan is what a pause or an unpause will do.
type PausePlan struct {
	Namespace string
	// Pause is true for a pause, false for an unpause.
	Pause bool
	Jobs  []PauseJob
}

// PauseJob is one job type of a plan, as the snapshot saw it.
type PauseJob struct {
	Name string
	// Key is the pause key, <ns>:jobs:<job>:paused.
	Key string
	// Known is false for a name that is not in known_jobs and that no
	// pool names: planned only when forced.
	Known bool
	// Paused is whether the snapshot saw the key; the script re-checks.
	Paused bool
	// InProgress and Queued are the snapshot's counts.
	InProgress int64
	Queued     int64
}

// Verb is "pause" or "unpause".
func (p PausePlan) Verb() string {
	if p.Pause {
		return "pause"
	}
	return "unpause"
}

// Names are the plan's job types, in plan order.
func (p PausePlan) Names() []string {
	out := make([]string, len(p.Jobs))
	for i, j := range p.Jobs {
		out[i] = j.Name
	}
	return out
}

// NewPausePlan works out, from a snapshot, what pausing (pause true) or
// unpausing the job types will do. It is pure. Pausing a name that is not
// in known_jobs and that no pool names (a typo would otherwise create a
// key nobody reads) is refused with ErrUnknownJob unless force is set;
// unpausing one is allowed (deleting a key that is not there changes
// nothing). Duplicate names count once.
func NewPausePlan(snap *model.Snapshot, jobs []string, pause, force bool) (PausePlan, error) {
	p := PausePlan{Pause: pause}
	if snap == nil {
		return p, fmt.Errorf("plan %s: no snapshot", p.Verb())
	}
	p.Namespace = snap.Namespace
	if len(jobs) == 0 {
		return p, fmt.Errorf("%s: %w", p.Verb(), ErrNoJob)
	}
	keys := redisq.NewKeys(snap.Namespace)
	known := map[string]bool{}
	for _, n := range model.JobNames(snap) {
		known[n] = true
	}
	seen := map[string]bool{}
	for _, name := range jobs {
		if name == "" {
			return p, fmt.Errorf("%s: %w (an empty name)", p.Verb(), ErrNoJob)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		j := PauseJob{Name: name, Key: keys.Paused(name), Known: known[name]}
		if jt, ok := snap.JobType(name); ok {
			j.Paused, j.InProgress, j.Queued = jt.Paused, jt.InProgress, jt.Queued
		}
		if pause && !j.Known && !force {
			return p, fmt.Errorf("pause %q: %w: it is not in %s and no worker pool names it; check the name, or force the pause", textsafe.Clean(name), ErrUnknownJob, textsafe.Clean(keys.KnownJobs()))
		}
		p.Jobs = append(p.Jobs, j)
	}
	return p, nil
}

// The outcomes of one job type.
const (
	PauseDone      = "paused"
	PauseAlready   = "already paused"
	UnpauseDone    = "unpaused"
	UnpauseAlready = "not paused"
	PauseRefused   = "refused"
	PauseUnchanged = "not changed"
)

// PauseResult is what a pause or unpause did.
type PauseResult struct {
	Pause bool
	Jobs  []PauseJobResult
	// Journal is the ID of the journal the action was recorded in, set by
	// the caller that kept one ("" without).
	Journal string
}

// PauseJobResult is what happened to one job type: Status is one of the
// outcomes above. Type is the Redis type of a refused key.
type PauseJobResult struct {
	Name   string
	Key    string
	Status string
	Type   string
}

// Changed is how many keys were written (set or deleted).
func (r PauseResult) Changed() int {
	n := 0
	for _, j := range r.Jobs {
		if j.Status == PauseDone || j.Status == UnpauseDone {
			n++
		}
	}
	return n
}

// ExecutePause carries out a plan in one script call: the script re-checks
// every key, and when one holds something other than a string (which
// gocraft/work never writes there) it changes nothing and the error wraps
// ErrWrongType. A key paused (or unpaused) by someone else since the plan
// is reported as such, not written again.
func ExecutePause(ctx context.Context, c redis.Conn, plan PausePlan) (PauseResult, error) {
	res := PauseResult{Pause: plan.Pause}
	if len(plan.Jobs) == 0 {
		return res, fmt.Errorf("%s: %w", plan.Verb(), ErrNoJob)
	}
	args := make([]any, 0, len(plan.Jobs)+2)
	args = append(args, len(plan.Jobs))
	for _, j := range plan.Jobs {
		args = append(args, j.Key)
	}
	args = append(args, plan.Verb())
	v, err := redis.Strings(pauseScript.DoContext(ctx, c, args...))
	if err != nil {
		return res, fmt.Errorf("%s %s: %w", plan.Verb(), textsafe.Clean(strings.Join(plan.Names(), ", ")), err)
	}
	if len(v) != len(plan.Jobs)+1 {
		return res, fmt.Errorf("%s: unexpected script reply %q", plan.Verb(), v)
	}
	var refused []string
	for i, j := range plan.Jobs {
		r := PauseJobResult{Name: j.Name, Key: j.Key}
		s := v[i+1]
		switch {
		case v[0] == "refused" && s != "none" && s != "string":
			r.Status, r.Type = PauseRefused, s
			refused = append(refused, fmt.Sprintf("%s is a %s, not a string", textsafe.Clean(j.Key), s))
		case v[0] == "refused":
			r.Status = PauseUnchanged
		case s == "paused":
			r.Status = PauseDone
		case s == "already":
			r.Status = PauseAlready
		case s == "unpaused":
			r.Status = UnpauseDone
		case s == "notpaused":
			r.Status = UnpauseAlready
		default:
			return res, fmt.Errorf("%s: unexpected script status %q", plan.Verb(), s)
		}
		res.Jobs = append(res.Jobs, r)
	}
	if len(refused) > 0 {
		return res, fmt.Errorf("%s refused, nothing changed: %s: %w", plan.Verb(), strings.Join(refused, "; "), ErrWrongType)
	}
	return res, nil
}

// Pauser runs pause plans on connections of its own (the screen's).
type Pauser struct{ conns redisq.Conns }

// NewPauser returns a Pauser over conns (a *redis.Pool).
func NewPauser(conns redisq.Conns) *Pauser { return &Pauser{conns: conns} }

// Pause executes a pause or unpause plan (see ExecutePause).
func (p *Pauser) Pause(ctx context.Context, plan PausePlan) (PauseResult, error) {
	c, err := p.conns.GetContext(ctx)
	if err != nil {
		return PauseResult{Pause: plan.Pause}, fmt.Errorf("%s: %w", plan.Verb(), err)
	}
	defer c.Close()
	return ExecutePause(ctx, c, plan)
}
