// Job health reads: the failures of the last hour, followed from poll to
// poll by reading only what changed, and the observations of the workers
// that hold the slots of the job types that wait. What they mean is
// model.AssessJobs'.

package redisq

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// retryMinBackoff is gocraft/work's shortest retry backoff (fails^4 + 15 +
// a random part): a member that entered the retry set after a poll is due
// at least this long after it.
const retryMinBackoff = 15 * time.Second

// maxObservedPools caps how many pools' workers one assessment reads.
const maxObservedPools = 500

// HealthTracker follows a namespace's failures from poll to poll and judges
// its job health (model.AssessJobs). Its first read takes the dead set's
// members of the history (the failure window and the baseline before it,
// by score: the time of death) and the whole retry set (its members carry
// failed_at); later reads take only the dead members scored at or after
// the newest one read, and the retry members due later than
// retryMinBackoff after the last read (where every member added since is),
// each counted once. A read costs O(new failures + the retry members of
// the last few minutes), not O(set size). The dead members are read in
// steps (readDead), each counted while Redis answers the next. Safe for
// one caller at a time or several.
type HealthTracker struct {
	keys   Keys
	limits model.HealthLimits
	seed   maphash.Seed

	mu      sync.Mutex
	started bool
	// deadLast is the newest dead score read; deadAtLast the members of
	// that score already counted.
	deadLast   int64
	deadAtLast map[uint64]bool
	// retrySeen are the retry members counted, with their failed_at;
	// retryFrom the Redis time of the last read.
	retrySeen map[uint64]int64
	retryFrom int64
	// log holds each type's failures of the history by its name: one
	// look-up a member, by the name's bytes (the name's string is made
	// once, when the type enters the log).
	log map[string]*typeLog
	// norm caches NormalizeError by error text: a failing type's errors
	// repeat, and the first read takes thousands. text is the buffer
	// members' escaped texts are read into (model.FailureText).
	norm map[string]string
	text []byte
	// waits are each queued type's samples of the last polls, for a
	// backlog by growth (model.WaitGrowing).
	waits map[string][]model.WaitSample
	// step holds a step's failures until each type's share is known
	// (addDead); deadLeft is how many dead members the first read has
	// still to count (ZCOUNT), -1 when unknown.
	step     []stepFailure
	deadLeft int64
}

// typeLog is one job type's failures in the tracker's log; inStep counts
// its failures in the step being counted.
type typeLog struct {
	name   string
	fs     []model.Failure
	inStep int
}

// stepFailure is a failure of a step, before it joins its type's log.
type stepFailure struct {
	tl *typeLog
	f  model.Failure
}

// NewHealthTracker returns a tracker of the namespace judging with limits.
func NewHealthTracker(namespace string, limits model.HealthLimits) *HealthTracker {
	return &HealthTracker{keys: NewKeys(namespace), limits: limits, seed: maphash.MakeSeed(),
		deadAtLast: map[uint64]bool{}, retrySeen: map[uint64]int64{}, log: map[string]*typeLog{}, norm: map[string]string{},
		waits: map[string][]model.WaitSample{}, deadLeft: -1}
}

// Limits are the thresholds the tracker judges with.
func (t *HealthTracker) Limits() model.HealthLimits { return t.limits }

// Assess reads what changed since the last read and the observations the
// judgement needs, sets snap.Jobs and puts its findings among snap's (in
// the place model.Findings gives them, without listing the others again).
func (t *HealthTracker) Assess(ctx context.Context, conn redis.Conn, snap *model.Snapshot) error {
	return t.assess(ctx, conn, snap, true)
}

// AssessAside is Assess for a read between the polls (an explanation):
// its queues are judged against the polls' samples and not added to them,
// so that it does not shorten the polls a backlog by growth spans.
func (t *HealthTracker) AssessAside(ctx context.Context, conn redis.Conn, snap *model.Snapshot) error {
	return t.assess(ctx, conn, snap, false)
}

func (t *HealthTracker) assess(ctx context.Context, conn redis.Conn, snap *model.Snapshot, sample bool) error {
	log, err := t.readFailures(ctx, conn, snap.RedisTime)
	if err != nil {
		return err
	}
	var ws []model.Worker
	if snap.Workers == nil {
		if pools := poolsToObserve(snap, t.limits); len(pools) > 0 {
			if ws, err = ReadWorkers(ctx, conn, t.keys, pools, snap.RedisTime); err != nil {
				return fmt.Errorf("read the workers of busy pools: %w", err)
			}
		}
	}
	snap.Jobs = model.AssessJobs(snap, model.HealthInput{Failures: log, Workers: ws, Waits: t.recordWaits(snap, sample)}, t.limits)
	snap.Findings = model.WithJobHealth(snap.Findings, snap.Jobs)
	return nil
}

// recordWaits returns the earlier polls' queue samples and, with sample,
// keeps snap's: the last model.GrowthPolls-1 of each queued type (a type
// whose queue emptied starts again).
func (t *HealthTracker) recordWaits(snap *model.Snapshot, sample bool) map[string][]model.WaitSample {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !sample {
		return t.waits
	}
	earlier := make(map[string][]model.WaitSample, len(t.waits))
	next := make(map[string][]model.WaitSample, len(snap.JobTypes))
	for _, jt := range snap.JobTypes {
		if jt.Queued == 0 || jt.Latency == nil {
			continue
		}
		prev := t.waits[jt.Name]
		earlier[jt.Name] = prev
		keep := append(slices.Clone(prev), model.WaitSample{Queued: jt.Queued, Wait: *jt.Latency})
		if len(keep) > model.GrowthPolls-1 {
			keep = keep[len(keep)-(model.GrowthPolls-1):]
		}
		next[jt.Name] = keep
	}
	t.waits = next
	return earlier
}

// poolsToObserve are the live pools whose every worker is busy and that
// serve a job type whose oldest job waited longer than StarveAfter: the
// ones whose workers may be what starves it, up to maxObservedPools.
func poolsToObserve(snap *model.Snapshot, l model.HealthLimits) []model.Pool {
	waiting := map[string]bool{}
	for _, jt := range snap.JobTypes {
		if jt.Queued > 0 && !jt.Paused && jt.Latency != nil && *jt.Latency > l.StarveAfter {
			waiting[jt.Name] = true
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	var out []model.Pool
	for i := range snap.Pools {
		p := &snap.Pools[i]
		if p.Status == model.StatusDead || p.Heartbeat == nil || len(out) == maxObservedPools {
			continue
		}
		if full, _ := model.SaturatedPools([]*model.Pool{p}); len(full) == 0 {
			continue
		}
		for _, n := range p.Heartbeat.JobNames {
			if waiting[n] {
				out = append(out, *p)
				break
			}
		}
	}
	return out
}

// readFailures reads the failures new since the last read (the history on
// the first) and returns the log of the history before now.
func (t *HealthTracker) readFailures(ctx context.Context, conn redis.Conn, now time.Time) (*model.FailureLog, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	since := now.Add(-t.limits.History()).Unix()
	deadFrom := strconv.FormatInt(since, 10)
	retryFrom := "-inf"
	if t.started {
		deadFrom = strconv.FormatInt(max(t.deadLast, since), 10)
		retryFrom = "(" + strconv.FormatInt(t.retryFrom+int64(retryMinBackoff/time.Second)-1, 10)
	}
	retry, err := t.readDead(ctx, conn, deadFrom, []any{t.keys.Retry(), retryFrom, "+inf", "WITHSCORES"})
	if err != nil {
		return nil, err
	}
	if retry != nil {
		t.addRetry(retry, since)
	}
	t.started = true
	t.retryFrom = now.Unix()
	return t.prune(since), nil
}

// healthStep is how many dead members one ZRANGEBYSCORE of readDead takes.
const healthStep = TimelineStep

// readDead counts the dead members scored from min on, walked by score
// healthStep at a time as WalkScores walks (each step from the last score
// read, skipping the members at that score already read), the next step
// sent as soon as a full one arrived and each counted (addDead) while
// Redis answers the next: the first read takes an hour of deaths, and its
// parse overlaps Redis's reply to the next step instead of following the
// whole reply. The counting is done here, not on a goroutine of its own:
// with Redis on one of two CPUs, a third thread bought no time (and cost
// its hand-offs). The retry read (ZRANGEBYSCORE's arguments) goes in the
// first round trip, after the first step (and, on the tracker's first
// read, a ZCOUNT of the dead members to take); its members are returned,
// nil when the key holds no sorted set.
func (t *HealthTracker) readDead(ctx context.Context, conn redis.Conn, min string, retryArgs []any) ([]any, error) {
	skip := 0
	send := func() error {
		if err := conn.Send("ZRANGEBYSCORE", t.keys.Dead(), min, "+inf", "WITHSCORES", "LIMIT", skip, healthStep); err != nil {
			return fmt.Errorf("read new failures: send ZRANGEBYSCORE: %w", err)
		}
		if err := conn.Flush(); err != nil {
			return fmt.Errorf("read new failures: send to redis: %w", err)
		}
		return nil
	}
	// The first round trip: the first step, then the retry read.
	if err := conn.Send("ZRANGEBYSCORE", t.keys.Dead(), min, "+inf", "WITHSCORES", "LIMIT", skip, healthStep); err != nil {
		return nil, fmt.Errorf("read new failures: send ZRANGEBYSCORE: %w", err)
	}
	if err := conn.Send("ZRANGEBYSCORE", retryArgs...); err != nil {
		return nil, fmt.Errorf("read new failures: send ZRANGEBYSCORE: %w", err)
	}
	rs := make([]reply, 2, 3)
	if !t.started {
		// The first read's count of the members it is to take sizes
		// each type's log once (addDead).
		if err := conn.Send("ZCOUNT", t.keys.Dead(), min, "+inf"); err != nil {
			return nil, fmt.Errorf("read new failures: send ZCOUNT: %w", err)
		}
		rs = rs[:3]
	}
	if err := conn.Flush(); err != nil {
		return nil, fmt.Errorf("read new failures: send to redis: %w", err)
	}
	if err := receiveInto(ctx, conn, rs); err != nil {
		return nil, fmt.Errorf("read new failures: %w", err)
	}
	for i, key := range []string{t.keys.Dead(), t.keys.Retry(), t.keys.Dead()}[:len(rs)] {
		if err := fatalReply(rs[i], key); err != nil {
			return nil, err
		}
	}
	retry, _ := rs[1].v.([]any)
	t.deadLeft = -1
	if len(rs) == 3 {
		if n, ok := rs[2].v.(int64); ok {
			t.deadLeft = n
		}
	}
	for {
		r := rs[0]
		if err := fatalReply(r, t.keys.Dead()); err != nil {
			return nil, err
		}
		// A reply of another shape (none from Redis) counts nothing.
		pairs, _ := r.v.([]any)
		if !scorePairs(pairs) {
			pairs = nil
		}
		full := len(pairs)/2 >= healthStep
		if full {
			min, skip = stepAfterValues(pairs, min, skip)
			if err := send(); err != nil {
				return nil, err
			}
		}
		t.addDead(pairs)
		if !full {
			return retry, nil
		}
		if err := receiveInto(ctx, conn, rs[:1]); err != nil {
			return nil, fmt.Errorf("read new failures: %w", err)
		}
	}
}

// addDead counts the dead members of pairs (member, score...) not counted
// yet, at their score. The members are read as model.FailureText reads
// them, nothing of a member kept but its type's name and its error's
// normal form: the first read takes an hour of deaths. A member is hashed
// only where it can be met again: at the newest score counted before pairs
// (whose members counted then are skipped) or at the newest of pairs
// (where the next step or read starts); a reply holds a member once, so
// the members of the scores between need no hash.
func (t *HealthTracker) addDead(pairs []any) {
	top, found := newestSeconds(pairs)
	if !found {
		return
	}
	prev := t.deadLast
	for i := 0; i+1 < len(pairs); i += 2 {
		member, _ := pairs[i].([]byte)
		score, _ := pairs[i+1].([]byte)
		at, ok := scoreSeconds(score)
		if !ok || at < t.deadLast {
			continue
		}
		hashed := at == prev || at == top
		var h uint64
		if hashed {
			h = maphash.Bytes(t.seed, member)
		}
		switch {
		case hashed && at == t.deadLast && t.deadAtLast[h]:
			continue
		case at > t.deadLast:
			t.deadLast = at
			if len(t.deadAtLast) > 0 {
				clear(t.deadAtLast)
			}
		}
		if hashed {
			t.deadAtLast[h] = true
		}
		tl, errText, _, ok := t.failureText(member)
		if !ok {
			continue
		}
		tl.inStep++
		t.step = append(t.step, stepFailure{tl: tl, f: model.Failure{At: at, Err: t.normalize(errText), Dead: true}})
	}
	t.joinStep(len(pairs) / 2)
}

// joinStep adds the step's failures (of members members) to their types'
// logs, in their order. A log too short for its step's failures grows
// once for what its type is likely to meet in the rest of the first read
// too: its share of this step times the members left (deadLeft), so that
// the hour's failures are not copied from array to array, each about
// twice the last, as appends would.
func (t *HealthTracker) joinStep(members int) {
	if t.deadLeft >= 0 {
		t.deadLeft = max(0, t.deadLeft-int64(members))
	}
	for _, sf := range t.step {
		tl := sf.tl
		if tl.inStep == 0 {
			continue
		}
		if need := len(tl.fs) + tl.inStep; need > cap(tl.fs) {
			more := need
			if t.deadLeft >= 0 {
				more = need + int(int64(tl.inStep)*t.deadLeft/int64(max(members, 1)))
			}
			tl.fs = slices.Grow(tl.fs, more-len(tl.fs))
		}
		tl.inStep = 0
	}
	for _, sf := range t.step {
		sf.tl.fs = append(sf.tl.fs, sf.f)
	}
	clear(t.step)
	t.step = t.step[:0]
}

// newestSeconds is the newest score of pairs (member, score...) in whole
// seconds (scoreSeconds); ok is false when no score reads as one.
func newestSeconds(pairs []any) (newest int64, ok bool) {
	for i := 1; i < len(pairs); i += 2 {
		score, _ := pairs[i].([]byte)
		if at, good := scoreSeconds(score); good && (!ok || at > newest) {
			newest, ok = at, true
		}
	}
	return newest, ok
}

// addRetry counts the retry members of pairs not counted yet, at their
// failed_at, when it falls within the history.
func (t *HealthTracker) addRetry(pairs []any, since int64) {
	for i := 0; i+1 < len(pairs); i += 2 {
		member, _ := pairs[i].([]byte)
		if member == nil {
			continue
		}
		h := maphash.Bytes(t.seed, member)
		if _, ok := t.retrySeen[h]; ok {
			continue
		}
		tl, errText, failedAt, ok := t.failureText(member)
		if !ok || failedAt <= since {
			continue
		}
		t.retrySeen[h] = failedAt
		tl.fs = append(tl.fs, model.Failure{At: failedAt, Err: t.normalize(errText)})
	}
}

// failureText reads a member's error text and failed_at, and finds its
// type's log (entered, empty, the first time: prune drops it while it
// stays empty); ok is false for a member that is not a job or has no
// name.
func (t *HealthTracker) failureText(member []byte) (tl *typeLog, errText []byte, failedAt int64, ok bool) {
	nameText, errText, failedAt, text, ok := model.FailureText(member, t.text)
	t.text = text
	if !ok || len(nameText) == 0 {
		return nil, nil, 0, false
	}
	tl = t.log[string(nameText)]
	if tl == nil {
		tl = &typeLog{name: string(nameText)}
		t.log[tl.name] = tl
	}
	return tl, errText, failedAt, true
}

// scoreSeconds reads a sorted set's score as whole seconds (a fraction
// truncated), as strconv.ParseFloat and a conversion to int64 do.
func scoreSeconds(score []byte) (int64, bool) {
	if n, ok := wholeSeconds(score); ok {
		return n, true
	}
	f, err := strconv.ParseFloat(string(score), 64)
	if err != nil {
		return 0, false
	}
	return int64(f), true
}

// wholeSeconds reads a score Redis wrote as an integer of at most 15
// digits (which a float64 holds exactly), the scores of a set scored by
// unix time.
func wholeSeconds(b []byte) (int64, bool) {
	digits := b
	if len(b) > 0 && b[0] == '-' {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) != len(b) {
		n = -n
	}
	return n, true
}

// normalize is model.NormalizeError, cached (up to 10,000 texts).
func (t *HealthTracker) normalize(text []byte) string {
	if n, ok := t.norm[string(text)]; ok {
		return n
	}
	s := string(text)
	n := model.NormalizeError(s)
	if len(t.norm) < 10_000 {
		t.norm[s] = n
	}
	return n
}

// prune drops what fell out of the history and returns a copy of the log,
// each type's failures in time order.
func (t *HealthTracker) prune(since int64) *model.FailureLog {
	for h, at := range t.retrySeen {
		if at <= since {
			delete(t.retrySeen, h)
		}
	}
	out := &model.FailureLog{Since: since, Jobs: make(map[string][]model.Failure, len(t.log))}
	for job, tl := range t.log {
		fs := tl.fs
		if !failuresSorted(fs) {
			// Sorted in an array of its own: the one shared with a log
			// handed out before keeps its order.
			fs = append([]model.Failure(nil), fs...)
			sortFailures(fs)
			tl.fs = fs
		}
		// The log handed out shares the tracker's array up to its length
		// (capped there, so the tracker's appends never show in it): what
		// falls out of the history is dropped into a new array, never
		// filtered in place under a log handed out before.
		drop := 0
		for drop < len(fs) && fs[drop].At <= since {
			drop++
		}
		if drop == len(fs) {
			delete(t.log, job)
			continue
		}
		if drop > 0 {
			fs = append([]model.Failure(nil), fs[drop:]...)
			tl.fs = fs
		}
		out.Jobs[job] = fs[:len(fs):len(fs)]
	}
	return out
}

// failuresSorted reports whether fs is in time order.
func failuresSorted(fs []model.Failure) bool {
	for i := 1; i < len(fs); i++ {
		if fs[i].At < fs[i-1].At {
			return false
		}
	}
	return true
}

// scorePairs reports whether vals is a reply WITHSCORES: member and score,
// both bulk strings, pair after pair.
func scorePairs(vals []any) bool {
	if len(vals)%2 != 0 {
		return false
	}
	for _, v := range vals {
		if _, ok := v.([]byte); !ok {
			return false
		}
	}
	return true
}

// stepAfterValues is stepAfter on a reply's values (scorePairs).
func stepAfterValues(pairs []any, min string, skip int) (string, int) {
	last, _ := pairs[len(pairs)-1].([]byte)
	same := 0
	for i := len(pairs) - 1; i > 0; i -= 2 {
		if score, _ := pairs[i].([]byte); !bytes.Equal(score, last) {
			break
		}
		same++
	}
	if string(last) == min {
		return min, skip + same
	}
	return string(last), same
}

// sortFailures orders failures by time; they arrive nearly sorted.
func sortFailures(fs []model.Failure) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].At < fs[j-1].At; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// AssessJobs judges snap's job health with tracker on a connection of the
// client's; what it costs Redis is added to snap.Cost when the read was
// measured (the screen's polls).
func (c *Client) AssessJobs(ctx context.Context, t *HealthTracker, snap *model.Snapshot) error {
	return c.assessJobs(ctx, t, snap, true)
}

// AssessJobsAside is AssessJobs for a read between the polls
// (HealthTracker.AssessAside).
func (c *Client) AssessJobsAside(ctx context.Context, t *HealthTracker, snap *model.Snapshot) error {
	return c.assessJobs(ctx, t, snap, false)
}

func (c *Client) assessJobs(ctx context.Context, t *HealthTracker, snap *model.Snapshot, sample bool) error {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return c.wrap(err)
	}
	defer conn.Close()
	if snap.Cost != nil {
		return c.wrap(t.assess(ctx, metered(conn, snap.Cost), snap, sample))
	}
	return c.wrap(t.assess(ctx, conn, snap, sample))
}
