package redisq

// This file owns the reads of the job sets <ns>:retry, <ns>:scheduled and
// <ns>:dead: their sizes, a page in the set's natural order, and a
// filtered page or a summary by a scan that never loads a set at once.

import (
	"bytes"
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// SetKey is the key of a job set in a namespace.
func SetKey(keys Keys, set model.SetName) string { return keys.Prefix() + string(set) }

// SetCounts are the sizes of the three job sets (model.SetCounts).
type SetCounts = model.SetCounts

// ReadSetCounts reads the sizes of the three sets in one round trip (ZCARD
// each). A key of another type is an error that names it.
func ReadSetCounts(ctx context.Context, c redis.Conn, keys Keys) (SetCounts, error) {
	var out SetCounts
	sets := []model.SetName{model.SetRetry, model.SetScheduled, model.SetDead}
	for _, s := range sets {
		if err := c.Send("ZCARD", SetKey(keys, s)); err != nil {
			return out, fmt.Errorf("read job set sizes: %w", err)
		}
	}
	if err := c.Flush(); err != nil {
		return out, fmt.Errorf("read job set sizes: %w", err)
	}
	var rs [3]reply
	if err := receiveInto(ctx, c, rs[:]); err != nil {
		return out, fmt.Errorf("read job set sizes: %w", err)
	}
	dst := []*int64{&out.Retry, &out.Scheduled, &out.Dead}
	var first error
	for i, s := range sets {
		n, err := redis.Int64(rs[i].v, rs[i].err)
		if err != nil && first == nil {
			first = fmt.Errorf("zcard %s: %w", SetKey(keys, s), err)
		}
		*dst[i] = n
	}
	return out, first
}

// PageOptions choose a page: Offset members are skipped and at most Limit
// returned (DefaultPageLimit when not positive), in the set's natural order
// (model.SetName.NewestFirst), or the opposite with Reverse.
type PageOptions struct {
	Offset  int
	Limit   int
	Reverse bool
}

// DefaultPageLimit is the page size when none is asked for (gocraft/work's
// web UI shows 20).
const DefaultPageLimit = 20

func (o PageOptions) limit() int {
	if o.Limit <= 0 {
		return DefaultPageLimit
	}
	return o.Limit
}

// newestFirst is the order the page is read in.
func (o PageOptions) newestFirst(set model.SetName) bool { return set.NewestFirst() != o.Reverse }

// SetPage is a page of a job set.
type SetPage struct {
	Set model.SetName `json:"set"`
	// Total is the set's size (ZCARD) for a plain page, or how many members
	// matched for a filtered one.
	Total  int64          `json:"count"`
	Offset int            `json:"offset"`
	Jobs   []model.SetJob `json:"jobs"`
}

// ReadSetPage reads one page in a single round trip: a ZRANGE over ranks
// (never the whole set) and ZCARD. Ranks give the same order as scores
// (ties by member bytes, as ZRANGEBYSCORE gives them); newest first reads
// the ranks from the end and reverses them, which is ZREVRANGE's order.
// Ranks also keep the read inside the read-only command list and working on
// every Redis version. Members that are not JSON, and fractional or
// infinite scores, are returned as they are (model.ParseSetJob).
func ReadSetPage(ctx context.Context, c redis.Conn, keys Keys, set model.SetName, o PageOptions) (SetPage, error) {
	key := SetKey(keys, set)
	page := SetPage{Set: set, Offset: max(o.Offset, 0)}
	lim := o.limit()
	start, stop := page.Offset, page.Offset+lim-1
	if o.newestFirst(set) {
		start, stop = -(page.Offset + lim), -(page.Offset + 1)
	}
	if err := c.Send("ZRANGE", key, start, stop, "WITHSCORES"); err != nil {
		return page, fmt.Errorf("read %s: %w", key, err)
	}
	if err := c.Send("ZCARD", key); err != nil {
		return page, fmt.Errorf("read %s: %w", key, err)
	}
	if err := c.Flush(); err != nil {
		return page, fmt.Errorf("read %s: %w", key, err)
	}
	var rs [2]reply
	if err := receiveInto(ctx, c, rs[:]); err != nil {
		return page, fmt.Errorf("read %s: %w", key, err)
	}
	vals, err := redis.Values(rs[0].v, rs[0].err)
	if err != nil {
		return page, fmt.Errorf("read %s: %w", key, err)
	}
	total, err := redis.Int64(rs[1].v, rs[1].err)
	if err != nil {
		return page, fmt.Errorf("zcard %s: %w", key, err)
	}
	page.Total = total
	pairs, err := withScores(vals)
	if err != nil {
		return page, fmt.Errorf("read %s: %w", key, err)
	}
	jobs := model.ParseSetJobs(set, pairs)
	if o.newestFirst(set) {
		for i, j := 0, len(jobs)-1; i < j; i, j = i+1, j-1 {
			jobs[i], jobs[j] = jobs[j], jobs[i]
		}
	}
	page.Jobs = jobs
	return page, nil
}

// withScores checks a member, score, member, score... reply and returns
// its items as bytes.
func withScores(vals []any) ([][]byte, error) {
	if len(vals)%2 != 0 {
		return nil, fmt.Errorf("unexpected reply: %d items, want pairs", len(vals))
	}
	pairs := make([][]byte, len(vals))
	for i, v := range vals {
		b, ok := v.([]byte)
		if !ok {
			return nil, fmt.Errorf("unexpected reply item of type %T", v)
		}
		pairs[i] = b
	}
	return pairs, nil
}

// naturalLess orders members as a page lists them: by score, ties by member
// bytes; newestFirst reverses both.
func naturalLess(newestFirst bool) func(a, b model.SetJob) bool {
	return func(a, b model.SetJob) bool {
		if a.Score != b.Score {
			return (a.Score < b.Score) != newestFirst
		}
		return (bytes.Compare(a.Raw, b.Raw) < 0) != newestFirst
	}
}
