package reaper

// This file owns the journal of pauses and unpauses: each pause key's
// value and remaining TTL before the script call, and what the call did to
// each.

import (
	"context"
	"errors"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
)

// ExecutePauseJournal is ExecutePause with its journal in w: the keys as
// they were go to the journal before the script call, what it did to each
// after it.
func ExecutePauseJournal(ctx context.Context, c redis.Conn, plan PausePlan, w JournalWriter) (PauseResult, error) {
	in := journal.Intent{}
	tv, err := redis.Int64s(redis.DoContext(c, ctx, "TIME"))
	if err != nil || len(tv) != 2 {
		return PauseResult{Pause: plan.Pause}, fmt.Errorf("%s: journal: read the time: %w", plan.Verb(), errOr(err, errors.New("bad reply")))
	}
	in.RedisMs = tv[0]*1000 + tv[1]/1000
	for _, j := range plan.Jobs {
		k, err := readKey(ctx, c, j.Key)
		if err != nil {
			return PauseResult{Pause: plan.Pause}, fmt.Errorf("%s: journal: %w", plan.Verb(), err)
		}
		in.Items = append(in.Items, journal.Item{Key: k})
	}
	seq, err := w.Intent(in)
	if err != nil {
		return PauseResult{Pause: plan.Pause}, fmt.Errorf("%s: nothing changed: %w", plan.Verb(), err)
	}
	res, execErr := ExecutePause(ctx, c, plan)
	commit := journal.Commit{}
	for _, r := range res.Jobs {
		commit.Statuses = append(commit.Statuses, r.Status)
	}
	if execErr != nil && len(res.Jobs) == 0 {
		commit.Error = execErr.Error()
	}
	if err := w.Commit(seq, commit); err != nil && execErr == nil {
		execErr = fmt.Errorf("%s done, but its journal was not written: %w", plan.Verb(), err)
	}
	return res, execErr
}

// readKey reads a string key's value and remaining TTL; a key of another
// type is recorded as there, without a value (it is never put back).
func readKey(ctx context.Context, c redis.Conn, key string) (*journal.Key, error) {
	k := &journal.Key{Name: key}
	typ, err := redis.String(redis.DoContext(c, ctx, "TYPE", key))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	switch typ {
	case "none":
		return k, nil
	case "string":
		v, err := redis.Bytes(redis.DoContext(c, ctx, "GET", key))
		if errors.Is(err, redis.ErrNil) {
			return k, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", key, err)
		}
		ttl, err := redis.Int64(redis.DoContext(c, ctx, "PTTL", key))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", key, err)
		}
		k.Exists, k.Value, k.PTTL = true, v, ttl
		return k, nil
	}
	k.Exists = true
	return k, nil
}
