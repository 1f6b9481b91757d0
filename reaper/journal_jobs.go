package reaper

// This file owns the journal of job-set writes: before each script call of
// a JobsExecutor is sent, what it will change (each member's set, score
// and exact bytes, the queue and the new bytes around their `t`, the unique
// key with its value and remaining TTL) goes to the action's journal, and
// after its reply, what the script reported. Undo (undo*.go) reads it back.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/redisq"
)

// JournalWriter is where an action's journal goes (a *journal.Writer).
// Intent writes its record before it returns and keeps nothing of it: the
// items' slice is used again for the next call's.
type JournalWriter interface {
	Intent(journal.Intent) (int, error)
	Commit(seq int, c journal.Commit) error
}

// JobsJournal journals the script calls of a JobsExecutor. It reads the
// values before on a connection of its own, so that the executor's calls
// stay in flight while it reads.
type JobsJournal struct {
	w    JournalWriter
	read redis.Conn
	// zmscore is whether Redis has ZMSCORE (6.2 and later).
	zmscore bool
	// clock is Redis's clock as its last TIME read it.
	clock redisClock
	// items is the slice of the last intent's items, used again for the
	// next: a bulk requeue's calls take 150 or so members each, and a new
	// slice for each call was a quarter of the bytes its execution
	// allocated.
	items []journal.Item
}

// NewJobsJournal returns a journal writing to w and reading on read (not
// the executor's connection).
func NewJobsJournal(w JournalWriter, read redis.Conn) *JobsJournal {
	j := &JobsJournal{w: w, read: read}
	// COMMAND INFO answers a nil entry for a command Redis does not have.
	if v, err := redis.Values(read.Do("COMMAND", "INFO", "ZMSCORE")); err == nil && len(v) == 1 && v[0] != nil {
		j.zmscore = true
	}
	return j
}

// WithJournal makes the executor journal every script call to j; nil
// journals nothing.
func (e *JobsExecutor) WithJournal(j *JobsJournal) *JobsExecutor {
	e.journal = j
	return e
}

// before is the state of a call's members as read before the call.
type before struct {
	redisMs int64
	// unique holds the unique keys read, by name.
	unique map[string]*journal.Key
}

// score reads what the journal needs of items before their call: the
// scores of those a bulk plan took without one (the call then takes each
// only at that score, so the journal holds the exact score it left), the
// unique keys of deleted members, and Redis's clock. Members gone from the
// set are left out and counted in res as gone.
//
// A call with nothing to read (its members have their scores and no
// unique key: a requeue by a time window) reads no clock either once one
// was read: its time is the last TIME plus the time passed since on this
// process's monotonic clock. Redis serves the journal's connection only
// between the script calls in flight on the executor's, so each TIME
// waited for one of them; at 10,000 jobs those waits were a quarter to a
// third of the execution's time, with the next call not yet built.
func (j *JobsJournal) score(ctx context.Context, plan *JobsPlan, items []JobItem, res *JobsResult) ([]JobItem, before, error) {
	b := before{unique: map[string]*journal.Key{}}
	setKey := redisq.SetKey(plan.keys, plan.Target.Set)
	if j.clock.read() && !needsRead(plan, items) {
		b.redisMs = j.clock.nowMs()
		return items, b, nil
	}
	type read struct {
		item   int
		unique string
	}
	var reads []read
	send := func(cmd string, args ...any) error { return j.read.Send(cmd, args...) }
	if err := send("TIME"); err != nil {
		return nil, b, fmt.Errorf("journal: %w", err)
	}
	// The scores in one ZMSCORE (Redis 6.2 and later), else one ZSCORE
	// each.
	var scoreless []int
	zargs := []any{setKey}
	for i, it := range items {
		if plan.Target.Set != "" && it.Job.ScoreText == "" {
			scoreless = append(scoreless, i)
			zargs = append(zargs, it.Job.Raw)
		}
	}
	multi := len(scoreless) > 0 && j.zmscore
	if multi {
		if err := send("ZMSCORE", zargs...); err != nil {
			return nil, b, fmt.Errorf("journal: %w", err)
		}
	} else {
		for _, i := range scoreless {
			if err := send("ZSCORE", setKey, items[i].Job.Raw); err != nil {
				return nil, b, fmt.Errorf("journal: %w", err)
			}
			reads = append(reads, read{item: i})
		}
	}
	for i, it := range items {
		if plan.Action == JobsDelete && it.UniqueKey != "" && b.unique[it.UniqueKey] == nil {
			b.unique[it.UniqueKey] = &journal.Key{Name: it.UniqueKey}
			if err := send("GET", it.UniqueKey); err != nil {
				return nil, b, fmt.Errorf("journal: %w", err)
			}
			if err := send("PTTL", it.UniqueKey); err != nil {
				return nil, b, fmt.Errorf("journal: %w", err)
			}
			reads = append(reads, read{item: i, unique: it.UniqueKey})
		}
	}
	if err := j.read.Flush(); err != nil {
		return nil, b, fmt.Errorf("journal: %w", err)
	}
	recv := func() (any, error) { return redis.ReceiveContext(j.read, ctx) }
	tv, err := redis.Int64s(recv())
	if err != nil || len(tv) != 2 {
		return nil, b, fmt.Errorf("journal: read the time: %w", errOr(err, errors.New("bad reply")))
	}
	b.redisMs = tv[0]*1000 + tv[1]/1000
	j.clock.set(b.redisMs)
	// Members that all carry their score (a walk by score range reads
	// them) and no unique key to read come back as they are: no copy of
	// the call's members.
	if len(scoreless) == 0 && len(reads) == 0 {
		return items, b, nil
	}
	out := make([]JobItem, 0, len(items))
	gone := map[int]bool{}
	scores := map[int]string{}
	if multi {
		vals, err := redis.Values(recv())
		if err != nil || len(vals) != len(scoreless) {
			return nil, b, fmt.Errorf("journal: read the scores in %s: %w", setKey, errOr(err, errors.New("bad reply")))
		}
		for k, v := range vals {
			if v == nil {
				gone[scoreless[k]] = true
			} else if s, err := redis.String(v, nil); err == nil {
				scores[scoreless[k]] = s
			}
		}
	}
	for _, r := range reads {
		if r.unique == "" {
			s, err := redis.String(recv())
			switch {
			case errors.Is(err, redis.ErrNil):
				gone[r.item] = true
			case err != nil:
				return nil, b, fmt.Errorf("journal: read the score in %s: %w", setKey, err)
			default:
				scores[r.item] = s
			}
			continue
		}
		k := b.unique[r.unique]
		v, gerr := redis.Bytes(recv())
		ttl, terr := redis.Int64(recv())
		if terr != nil {
			return nil, b, fmt.Errorf("journal: read %s: %w", r.unique, terr)
		}
		var re redis.Error
		switch {
		case errors.Is(gerr, redis.ErrNil):
		case errors.As(gerr, &re):
			k.Exists = true // not a string: never put back
		case gerr != nil:
			return nil, b, fmt.Errorf("journal: read %s: %w", r.unique, gerr)
		default:
			k.Exists, k.Value, k.PTTL = true, v, ttl
		}
	}
	for i, it := range items {
		if gone[i] {
			res.GoneCount++
			if len(res.Gone) < ReportLimit {
				res.Gone = append(res.Gone, it.Job)
			}
			continue
		}
		if s, ok := scores[i]; ok {
			it.Job.SetScore(s)
		}
		out = append(out, it)
	}
	return out, b, nil
}

// needsRead reports whether the journal reads anything of items before
// their call: a score (a member without one) or a unique key (a delete).
func needsRead(plan *JobsPlan, items []JobItem) bool {
	for _, it := range items {
		if plan.Target.Set != "" && it.Job.ScoreText == "" {
			return true
		}
		if plan.Action == JobsDelete && it.UniqueKey != "" {
			return true
		}
	}
	return false
}

// intent writes what call cl will change.
func (j *JobsJournal) intent(plan *JobsPlan, cl call, b before) (int, error) {
	setKey := redisq.SetKey(plan.keys, plan.Target.Set)
	in := journal.Intent{RedisMs: b.redisMs, Items: slices.Grow(j.items[:0], len(cl.sent))}
	for i, it := range cl.sent {
		item := journal.Item{Set: setKey, Score: it.Job.ScoreText, Old: it.Job.Raw}
		if plan.Action == JobsRequeue {
			// The edit the call's arguments were built from: the bytes
			// around the new `t`.
			edit := cl.edits[i]
			item.Queue, item.NewBefore, item.NewAfter = it.QueueKey, edit.Before, edit.After
		} else if it.UniqueKey != "" {
			k := *b.unique[it.UniqueKey]
			k.Mode = string([]byte{max(it.UniqueMode, '-')})
			item.Unique = &k
		}
		in.Items = append(in.Items, item)
	}
	seq, err := j.w.Intent(in)
	clear(in.Items)
	j.items = in.Items[:0]
	if err != nil {
		return 0, fmt.Errorf("%s: nothing more sent: %w", plan.Action, err)
	}
	return seq, nil
}

// commit writes what call seq reported: the codes of its members, and for
// a requeue Redis's clock as the script read it (the new jobs' `t`).
func (j *JobsJournal) commit(seq int, reply any, callErr error) error {
	c := journal.Commit{}
	if callErr != nil {
		c.Error = callErr.Error()
	} else if vals, err := redis.Values(reply, nil); err == nil && len(vals) >= 2 {
		// A reply other than ok (a key of the wrong type) wrote nothing:
		// no codes, so no member counts as changed.
		if status, _ := redis.String(vals[0], nil); status == "ok" {
			c.Codes, _ = redis.String(vals[1], nil)
			if len(vals) >= 3 {
				c.Now, _ = redis.String(vals[2], nil)
			}
		} else {
			c.Statuses = []string{status}
		}
	}
	if err := j.w.Commit(seq, c); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// queueIntent writes what the delete of it from its queue will change.
func (j *JobsJournal) queueIntent(ctx context.Context, it JobItem) (int, error) {
	item := journal.Item{Queue: it.QueueKey, Old: it.Job.Raw}
	tv, err := redis.Int64s(redis.DoContext(j.read, ctx, "TIME"))
	if err != nil || len(tv) != 2 {
		return 0, fmt.Errorf("journal: read the time: %w", errOr(err, errors.New("bad reply")))
	}
	if it.UniqueKey != "" {
		k := &journal.Key{Name: it.UniqueKey, Mode: "a"}
		v, gerr := redis.Bytes(redis.DoContext(j.read, ctx, "GET", it.UniqueKey))
		ttl, terr := redis.Int64(redis.DoContext(j.read, ctx, "PTTL", it.UniqueKey))
		if terr != nil {
			return 0, fmt.Errorf("journal: read %s: %w", it.UniqueKey, terr)
		}
		if gerr == nil {
			k.Exists, k.Value, k.PTTL = true, v, ttl
		} else if !errors.Is(gerr, redis.ErrNil) {
			k.Exists = true
		}
		item.Unique = k
	}
	return j.w.Intent(journal.Intent{RedisMs: tv[0]*1000 + tv[1]/1000, Items: []journal.Item{item}})
}

// queueCommit writes how many copies the queue delete removed.
func (j *JobsJournal) queueCommit(seq int, removed, unique int64, callErr error) error {
	c := journal.Commit{Counts: []int64{removed}, Codes: strconv.FormatInt(unique, 10)}
	if callErr != nil {
		c = journal.Commit{Error: callErr.Error()}
	}
	return j.w.Commit(seq, c)
}

// journalRead is score for the pipe's journal (items as they are without
// one).
func (p *callPipe) journalRead(ctx context.Context, items []JobItem) ([]JobItem, before, error) {
	if p.e.journal == nil {
		return items, before{}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, before{}, fmt.Errorf("%s: stopped after %d jobs: %w", p.plan.Action, p.res.Done, errors.Join(err, p.wait(ctx)))
	}
	out, b, err := p.e.journal.score(ctx, p.plan, items, p.res)
	if err != nil {
		return nil, b, fmt.Errorf("%s: nothing more sent: %w", p.plan.Action, err)
	}
	return out, b, nil
}

// journalIntent is intent for the pipe's journal (0 without one).
func (p *callPipe) journalIntent(cl call, b before) (int, error) {
	if p.e.journal == nil {
		return 0, nil
	}
	return p.e.journal.intent(p.plan, cl, b)
}

// journalCommit is commit for the pipe's journal.
func (p *callPipe) journalCommit(seq int, reply any, callErr error) error {
	if p.e.journal == nil || seq == 0 {
		return nil
	}
	return p.e.journal.commit(seq, reply, callErr)
}

func (e *JobsExecutor) journalQueueIntent(ctx context.Context, it JobItem) (int, error) {
	if e.journal == nil {
		return 0, nil
	}
	seq, err := e.journal.queueIntent(ctx, it)
	if err != nil {
		return 0, fmt.Errorf("delete from %s: nothing more sent: %w", it.QueueKey, err)
	}
	return seq, nil
}

func (e *JobsExecutor) journalQueueCommit(seq int, removed, unique int64) error {
	if e.journal == nil {
		return nil
	}
	if err := e.journal.queueCommit(seq, removed, unique, nil); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}
