package reaper

// This file owns the plans of the job-set actions: requeue or delete
// members of <ns>:retry, <ns>:scheduled and <ns>:dead, and delete a job
// from a queue. jobs_exec.go carries them out; jobs_render.go draws them.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// JobsAction is what to do with the jobs.
type JobsAction string

// The actions.
const (
	// JobsRequeue pushes set members onto their queues: dead jobs lose
	// fails, err and failed_at (gocraft/work's RetryDeadJob); retry and
	// scheduled jobs keep them (its requeuers, "run now"). t becomes now.
	JobsRequeue JobsAction = "requeue"
	// JobsDelete removes set members, or a job from a queue.
	JobsDelete JobsAction = "delete"
)

// Sentinel errors of the job actions, checked with errors.Is.
var (
	// ErrJobNotFound: a job given by id (or bytes) is not where it was
	// looked for.
	ErrJobNotFound = errors.New("job not found")
	// ErrUnknownJobName: a job's name is not in <ns>:known_jobs.
	ErrUnknownJobName = errors.New("job name not in known_jobs")
	// ErrUnserved: no pool in <ns>:worker_pools serves the job's name, so a
	// requeued job would wait forever; Force pushes it anyway.
	ErrUnserved = errors.New("no worker pool serves this job name")
	// ErrNotRequeueable: a member is not a job that can be requeued (not a
	// JSON object, no name).
	ErrNotRequeueable = errors.New("member cannot be requeued")
	// ErrBadTarget: the target is incomplete or contradictory.
	ErrBadTarget = errors.New("invalid job target")
)

// JobRef addresses one job: by id (any member of the set with that id), by
// id and score (only members with that score, as gocraft/work's Client
// addresses them), or by the member's exact bytes and score (a member that
// is not JSON has no id).
type JobRef struct {
	ID    string
	Score string
	Raw   []byte
}

func (r JobRef) String() string {
	s := r.ID
	if r.Raw != nil {
		s = fmt.Sprintf("%q", truncateBytes(r.Raw, 40))
	}
	if r.Score != "" {
		s += "@" + r.Score
	}
	return s
}

// JobsTarget says which jobs an action takes.
type JobsTarget struct {
	// Set is the job set; for a queue delete it is empty and Queue names
	// the job type whose queue holds the jobs.
	Set   model.SetName
	Queue string
	// Refs are the jobs, one by one; or All takes every member of the set
	// (of job type Job when that is set).
	Refs []JobRef
	All  bool
	Job  string
	// Query, with All, takes only the members it matches (time terms read
	// only their score range).
	Query *model.Query
	// Force requeues jobs whose name no pool serves.
	Force bool
}

// JobItem is one member an action takes.
type JobItem struct {
	Job model.SetJob
	// QueueKey is where a requeue pushes it, or the queue a queue delete
	// removes it from.
	QueueKey string
	// UniqueKey is its unique key ("" when it has none); UniqueMode is 'a'
	// (deleted with the job) or 'o' (deleted only if it names this job).
	UniqueKey  string
	UniqueMode byte
	// slim is set on a kept item of a bulk requeue whose decoded fields
	// (Job.Job) the plan let go once it had counted them: the execution
	// needs only the member's bytes, its queue and name. A plan of
	// millions holds a few hundred bytes less a job.
	slim bool
	name string
}

// jobName is the name the item's job is counted under, and whether it
// has one (a member that is not a job has none).
func (it JobItem) jobName() (string, bool) {
	if it.slim {
		return it.name, true
	}
	if it.Job.Job != nil {
		return it.Job.Job.Name, true
	}
	return "", false
}

// reported is the member as a result lists it (gone or rescored), its
// fields read again when the plan let them go.
func (it JobItem) reported() model.SetJob {
	if it.slim {
		return model.ParseSetJob(it.Job.Set, it.Job.Raw, it.Job.ScoreText)
	}
	return it.Job
}

// SkipCount is members a bulk action leaves alone, and why.
type SkipCount struct {
	Reason string
	N      int64
}

// JobsPlan is what a job action will do. For jobs given one by one it lists
// every member; for a bulk action (All) it counts them by a scan of the set,
// lists the first few and keeps them all for the execution (up to
// BulkKeepBytes; beyond that the execution scans again, applying the same
// rules to what is there then). The new JSON of a requeued job is cut by
// the execution, not the plan.
type JobsPlan struct {
	Namespace string
	Action    JobsAction
	Target    JobsTarget
	RedisTime time.Time
	// Items are the members acted on (bulk: the first SampleSize).
	Items []JobItem
	// Total is how many members the action takes; ByName per job name.
	Total  int64
	ByName map[string]int64
	// Skipped are members a bulk action leaves alone (not a job, name not
	// in known_jobs, name nobody serves without Force, ...).
	Skipped []SkipCount
	// Unserved are the job names taken that no pool in the set serves
	// (only with Force).
	Unserved []string
	// Warnings are for the operator (periodic jobs coming back, unique
	// keys, ...).
	Warnings []string
	// Matched counts a bulk plan's members by error and the scores they
	// span (bulk_summary.go).
	Matched BulkSummary
	// Refused is the error that stops the write (a job name no live pool
	// serves, or not in known_jobs) when the plan was still built in full,
	// so that a dry run can show it; PlanJobs returns it too.
	Refused error
	// Rate, when above 0, is the most jobs a second the execution sends
	// (SetRate), whatever the executor's own rate; the screen's dialog
	// sets it.
	Rate int

	known, served map[string]bool
	// paused are the job names of a requeue's jobs that are paused.
	paused map[string]bool
	queues map[string]string
	// names holds each job name once (internName).
	names       map[string]string
	keys        redisq.Keys
	noUniqueKey int
	// kept holds every member a bulk plan takes, sorted by score, while
	// their bytes stay within BulkKeepBytes (everyBytes); with everyKept
	// the execution takes them without scanning the set again. Each step
	// of the walk keeps its members in a slice of its own, which the
	// execution takes in turn: one slice for all would be copied once
	// more at the end (a growing one, again and again), and at 10,000
	// members those copies were a tenth of the bytes a plan allocates.
	kept       [][]JobItem
	everyBytes int
	everyKept  bool
}

// BulkKeepBytes bounds the member bytes a bulk plan keeps for its
// execution. A plan that takes more lets the execution scan the set again,
// so that memory stays bounded whatever the set holds.
const BulkKeepBytes = 128 << 20

// BulkScanCount is the members each call of the walks of bulk actions and
// of jobs looked up by id reads: five times the reads' default, so a set of
// a million members takes about 200 calls, each holding Redis for well
// under a millisecond.
const BulkScanCount = 5 * redisq.DefaultSetScanCount

// BulkRangeCount is the members each call of a bulk plan's walk of a
// score range reads (a query with time terms): its replies carry the
// scores, and every member read is parsed, so steps of BulkScanCount kept
// five times the memory in flight; at this size the walk reuses it from
// step to step (a requeue of a 10,000-job hour: 2,770 page faults to
// 2,490, 106 to 94 ms).
const BulkRangeCount = redisq.DefaultSetScanCount

// SampleSize is how many members a bulk plan lists.
const SampleSize = 20

// PlanJobs reads what an action needs (TIME, known_jobs, the heartbeats'
// job names, the members) and returns its plan. Bad input (an unknown set,
// a job not found, a name not in known_jobs, a name nobody serves without
// Force, a member that cannot be requeued) fails the whole plan with one
// error; nothing is written.
func PlanJobs(ctx context.Context, c redis.Conn, keys redisq.Keys, action JobsAction, target JobsTarget) (JobsPlan, error) {
	plan := JobsPlan{Namespace: strings.TrimSuffix(keys.Prefix(), ":"), Action: action, Target: target, ByName: map[string]int64{}, keys: keys}
	if err := target.validate(action); err != nil {
		return plan, err
	}
	now, err := redisq.Time(ctx, c)
	if err != nil {
		return plan, fmt.Errorf("plan %s: %w", action, err)
	}
	plan.RedisTime = now
	if plan.known, err = jobsKnown(ctx, c, keys); err != nil {
		return plan, err
	}
	if plan.served, err = jobsServed(ctx, c, keys, now); err != nil {
		return plan, err
	}
	if name := target.jobName(); action == JobsRequeue && target.All && name != "" {
		switch {
		case !plan.known[name]:
			plan.Refused = fmt.Errorf("requeue %s jobs of %q: %w", target.Set, name, ErrUnknownJobName)
		case !plan.served[name] && !target.Force:
			plan.Refused = fmt.Errorf("requeue %s jobs of %q: %w (they would wait forever; --force pushes them anyway)", target.Set, name, ErrUnserved)
		}
	}
	plan.Matched = newBulkSummary()
	unserved := map[string]bool{}
	periodic, harborPeriodic := 0, 0
	add := func(it JobItem, sample bool) {
		plan.Total++
		if it.Job.Job != nil {
			plan.ByName[it.Job.Job.Name]++
			if action == JobsRequeue && !plan.served[it.Job.Job.Name] {
				unserved[it.Job.Job.Name] = true
			}
			if it.Job.Job.Periodic() {
				periodic++
			}
			if it.Job.Job.HarborPeriodic() {
				harborPeriodic++
			}
		}
		if sample {
			plan.Items = append(plan.Items, it)
		}
	}
	switch {
	case target.Set == "":
		items, err := planQueueDelete(ctx, c, keys, target)
		if err != nil {
			return plan, err
		}
		for _, it := range items {
			add(it, true)
		}
	case target.All:
		plan.everyKept = true
		skipped := map[string]int64{}
		count := BulkScanCount
		if target.Query.HasTime() {
			count = BulkRangeCount
		}
		s := redisq.NewSetWalk(keys, target.Set, target.filter(), count)
		// Redis scans the next step while this one is parsed.
		s.ReadAhead()
		// A requeue keeps of each job its bytes, queue and name (keep):
		// the walk reads each step's fields into the memory of the step
		// before, and the jobs listed and the span's ends keep copies.
		reuse := action == JobsRequeue
		if reuse {
			s.Reuse()
		}
		for !s.Progress().Done {
			jobs, err := s.Step(ctx, c)
			if err != nil {
				return plan, fmt.Errorf("plan %s: %w", action, err)
			}
			items := make([]JobItem, 0, len(jobs))
			for _, sj := range jobs {
				plan.Matched.add(sj)
				it, err := plan.item(sj)
				if err != nil {
					skipped[skipReason(err)]++
					continue
				}
				listed := len(plan.Items) < SampleSize
				if listed && reuse && it.Job.Job != nil {
					f := *it.Job.Job
					it.Job.Job = &f
				}
				add(it, listed)
				items = append(items, it)
			}
			if reuse {
				plan.Matched.own()
			}
			plan.keep(items)
		}
		// A walk of the whole set reads no scores; the jobs the plan lists
		// show theirs, and the first and last jobs bound the span.
		if err := plan.scoreItems(ctx, c); err != nil {
			return plan, fmt.Errorf("plan %s: %w", action, err)
		}
		if err := plan.Matched.readSpan(ctx, c, keys, target.Set); err != nil {
			return plan, fmt.Errorf("plan %s: %w", action, err)
		}
		for r, n := range skipped {
			plan.Skipped = append(plan.Skipped, SkipCount{r, n})
		}
		sort.Slice(plan.Skipped, func(i, j int) bool { return plan.Skipped[i].Reason < plan.Skipped[j].Reason })
	default:
		members, err := findRefs(ctx, c, keys, target.Set, target.Refs)
		if err != nil {
			return plan, err
		}
		for _, sj := range members {
			it, err := plan.item(sj)
			if err != nil {
				return plan, fmt.Errorf("%s %s job %s: %w", action, target.Set, describeMember(sj), err)
			}
			add(it, true)
		}
	}
	for n := range unserved {
		plan.Unserved = append(plan.Unserved, n)
	}
	sort.Strings(plan.Unserved)
	if len(plan.Unserved) > 0 {
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("no worker pool serves %s: those jobs will wait in their queue until one does (--force given)", strings.Join(plan.Unserved, ", ")))
	}
	if action == JobsRequeue {
		if err := plan.readPaused(ctx, c); err != nil {
			return plan, err
		}
	}
	if plan.noUniqueKey > 0 {
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("%d unique job(s) with args that are not an object: no unique key can be built for them, none is deleted", plan.noUniqueKey))
	}
	if periodic > 0 {
		what := "deleted"
		if action == JobsRequeue {
			what = "run now"
		}
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("%d periodic job(s): the next periodic pass (every 2-2.5 min) writes them into scheduled again while their fire time is within 4 min, so what is %s may come back", periodic, what))
	}
	if harborPeriodic > 0 {
		plan.Warnings = append(plan.Warnings, harborPeriodicWarning(harborPeriodic, action))
	}
	return plan, plan.Refused
}

// Serves reports whether a live pool serves a job name (a bulk plan's
// counts show it per name).
func (p JobsPlan) Serves(name string) bool { return p.served[name] }

// SkippedUnserved is how many members a bulk plan made without Force
// leaves alone because no live pool serves their name.
func (p JobsPlan) SkippedUnserved() int64 {
	var n int64
	for _, s := range p.Skipped {
		if s.Reason == skipReason(ErrUnserved) {
			n += s.N
		}
	}
	return n
}

// Unforced rewrites the warning of a plan made with Force for the
// operator who did not give it: the jobs nobody serves are listed, and how
// says what a run without Force does and how to force it.
func (p *JobsPlan) Unforced(how string) {
	for i, w := range p.Warnings {
		p.Warnings[i] = strings.Replace(w, "(--force given)", "("+how+")", 1)
	}
}

// Paused reports whether a requeue's job name is paused: its jobs wait in
// their queue until it is unpaused.
func (p JobsPlan) Paused(name string) bool { return p.paused[name] }

// readPaused reads which job names of the requeue are paused, and warns
// of them as of the names no pool serves.
func (p *JobsPlan) readPaused(ctx context.Context, c redis.Conn) error {
	seen := map[string]bool{}
	var names []string
	for _, m := range []map[string]int64{p.ByName, p.Matched.Sum.ByName} {
		for n := range m {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	var err error
	if p.paused, err = jobsPaused(ctx, c, p.keys, names); err != nil {
		return fmt.Errorf("plan %s: %w", p.Action, err)
	}
	var paused []string
	for _, n := range names {
		if p.paused[n] && p.ByName[n] > 0 {
			paused = append(paused, n)
		}
	}
	if len(paused) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s paused: those jobs will wait in their queue until it is unpaused", strings.Join(paused, ", ")))
	}
	return nil
}

// jobName is the one job name a bulk target takes, from Job or an exact
// job: term of its query; "" when it takes several.
func (t JobsTarget) jobName() string {
	if t.Job != "" {
		return t.Job
	}
	return t.Query.JobName()
}

// filter is what a bulk target's walk selects.
func (t JobsTarget) filter() redisq.SetFilter {
	return redisq.SetFilter{Job: t.Job, Query: t.Query}
}

// keep holds items for the execution, until the plan's bytes pass
// BulkKeepBytes.
func (p *JobsPlan) keep(items []JobItem) {
	if !p.everyKept || len(items) == 0 {
		return
	}
	for _, it := range items {
		p.everyBytes += len(it.Job.Raw)
	}
	if p.everyBytes > BulkKeepBytes {
		p.kept, p.everyKept = nil, false
		return
	}
	if p.Action == JobsRequeue {
		// A requeue cuts each job from its bytes: the decoded fields,
		// counted already, are let go (the name kept, one string a name).
		for i := range items {
			if j := items[i].Job.Job; j != nil {
				items[i].name, items[i].slim = p.internName(j.Name), true
				items[i].Job.Job = nil
			}
		}
	}
	p.kept = append(p.kept, items)
}

// internName is name as the plan holds it: one string a name, however
// many jobs carry it.
func (p *JobsPlan) internName(name string) string {
	if n, ok := p.names[name]; ok {
		return n
	}
	if p.names == nil {
		p.names = map[string]string{}
	}
	p.names[name] = name
	return name
}

// scoreItems reads the scores of the jobs a bulk plan lists. A job that left
// the set since the walk read it is listed without one.
func (p *JobsPlan) scoreItems(ctx context.Context, c redis.Conn) error {
	jobs := make([]model.SetJob, len(p.Items))
	for i, it := range p.Items {
		jobs[i] = it.Job
	}
	scored, err := redisq.ReadScores(ctx, c, p.keys, p.Target.Set, jobs)
	if err != nil {
		return err
	}
	// scored is jobs in the same order, less those gone.
	for i := range p.Items {
		if len(scored) > 0 && bytes.Equal(scored[0].Raw, p.Items[i].Job.Raw) {
			p.Items[i].Job, scored = scored[0], scored[1:]
		}
	}
	return nil
}

func (t JobsTarget) validate(action JobsAction) error {
	switch action {
	case JobsRequeue, JobsDelete:
	default:
		return fmt.Errorf("%w: unknown action %q", ErrBadTarget, action)
	}
	if t.Set == "" {
		if t.Queue == "" {
			return fmt.Errorf("%w: no job set and no queue", ErrBadTarget)
		}
		if action != JobsDelete || t.All || len(t.Refs) == 0 {
			return fmt.Errorf("%w: a queue only takes deletes of jobs given by id", ErrBadTarget)
		}
	} else if _, err := model.ParseSetName(string(t.Set)); err != nil {
		return fmt.Errorf("%w: %v", ErrBadTarget, err)
	}
	if t.All == (len(t.Refs) > 0) {
		return fmt.Errorf("%w: give job ids or all, not both or neither", ErrBadTarget)
	}
	if (t.Job != "" || !t.Query.Empty()) && !t.All {
		return fmt.Errorf("%w: a job type filter or a query goes with all", ErrBadTarget)
	}
	for _, r := range t.Refs {
		if r.ID == "" && r.Raw == nil {
			return fmt.Errorf("%w: empty job id", ErrBadTarget)
		}
		if r.Raw != nil && r.Score == "" && t.Set != "" {
			return fmt.Errorf("%w: a member given by its bytes needs its score", ErrBadTarget)
		}
	}
	return nil
}

// item checks one member against the action's rules and prepares it.
func (p *JobsPlan) item(sj model.SetJob) (JobItem, error) {
	it := JobItem{Job: sj}
	j := sj.Job
	if p.Action == JobsRequeue {
		if j == nil || j.Name == "" {
			return it, fmt.Errorf("%w: not a job with a name", ErrNotRequeueable)
		}
		if !p.known[j.Name] {
			return it, fmt.Errorf("%q: %w", j.Name, ErrUnknownJobName)
		}
		if !p.served[j.Name] && !p.Target.Force {
			return it, fmt.Errorf("%q: %w (the job would wait forever; --force pushes it anyway)", j.Name, ErrUnserved)
		}
		if err := requeueCheck(sj); err != nil {
			return it, fmt.Errorf("%w: %w", ErrNotRequeueable, err)
		}
		it.QueueKey = p.queueKey(j.Name)
		return it, nil
	}
	if j == nil {
		return it, nil
	}
	key, ok, err := j.UniqueKeyIn(p.keys.Prefix())
	if err != nil {
		// Its args are not an object: gocraft/work could not have built a
		// unique key for it either.
		p.noUniqueKey++
		return it, nil //nolint:nilerr // counted in a warning of the plan, not a failure
	}
	if ok {
		it.UniqueKey = key
		it.UniqueMode = 'a'
		if sj.Set == model.SetRetry || sj.Set == model.SetDead {
			it.UniqueMode = 'o'
		}
	}
	return it, nil
}

// queueKey is the queue of a job name, built once per name: a bulk plan
// holds one for each of up to millions of jobs.
func (p *JobsPlan) queueKey(name string) string {
	if k, ok := p.queues[name]; ok {
		return k
	}
	if p.queues == nil {
		p.queues = map[string]string{}
	}
	k := p.keys.Queue(name)
	p.queues[name] = k
	return k
}

// requeueCheck reports whether a member that reads as a job can be cut for
// its requeue (model.EditForRequeue), which the execution does. Of such a
// member only a second `t` key stops the cut, and that takes two `"t"`
// texts or an escape (`\u0074`): only then is the whole cut tried here.
func requeueCheck(sj model.SetJob) error {
	if bytes.Count(sj.Raw, []byte(`"t"`)) < 2 && !bytes.Contains(sj.Raw, []byte(`\u`)) {
		return nil
	}
	_, err := model.EditForRequeue(sj.Raw, sj.Set == model.SetDead)
	return err
}

func skipReason(err error) string {
	switch {
	case errors.Is(err, ErrUnknownJobName):
		return "name not in known_jobs"
	case errors.Is(err, ErrUnserved):
		return "name no worker pool serves (--force pushes them)"
	case errors.Is(err, ErrNotRequeueable):
		return "not a job that can be requeued"
	}
	return err.Error()
}

func describeMember(sj model.SetJob) string {
	at := ""
	if sj.ScoreText != "" { // a bulk plan reads no scores
		at = "@" + sj.ScoreText
	}
	if sj.Job != nil && sj.Job.ID != "" {
		return sj.Job.ID + at
	}
	return fmt.Sprintf("%q%s", truncateBytes(sj.Raw, 40), at)
}

func truncateBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
