package reaper

// This file owns the journal of a throttle: the max_concurrency key as it
// was before the script call, what the call wrote, and what it did.

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
)

// ExecuteThrottleJournal is ExecuteThrottle with its journal in w: the key
// as it was and the value to be written go to the journal before the
// script call, the outcome after it.
func ExecuteThrottleJournal(ctx context.Context, c redis.Conn, plan ThrottlePlan, w JournalWriter) (ThrottleResult, error) {
	res := ThrottleResult{Name: plan.Name, Key: plan.Key, New: plan.New}
	tv, err := redis.Int64s(redis.DoContext(c, ctx, "TIME"))
	if err != nil || len(tv) != 2 {
		return res, fmt.Errorf("throttle: journal: read the time: %w", errOr(err, errors.New("bad reply")))
	}
	k, err := readKey(ctx, c, plan.Key)
	if err != nil {
		return res, fmt.Errorf("throttle: journal: %w", err)
	}
	in := journal.Intent{RedisMs: tv[0]*1000 + tv[1]/1000,
		Items: []journal.Item{{Key: k, New: []byte(strconv.FormatInt(plan.New, 10))}}}
	seq, err := w.Intent(in)
	if err != nil {
		return res, fmt.Errorf("throttle: nothing changed: %w", err)
	}
	res, execErr := ExecuteThrottle(ctx, c, plan)
	commit := journal.Commit{}
	if res.Status != "" {
		commit.Statuses = []string{res.Status}
	} else if execErr != nil {
		commit.Error = execErr.Error()
	}
	if err := w.Commit(seq, commit); err != nil && execErr == nil {
		execErr = fmt.Errorf("throttle done, but its journal was not written: %w", err)
	}
	return res, execErr
}
