package redisq

// This file owns the re-read of a filtered page of a job set that follows
// the screen's polls: what the page showed is looked up again, and the
// members that came in above it are read, in one round trip and without
// a walk of the set.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// FollowNewLimit is the most new members one re-read of a filtered page
// reads (FollowSetPage).
const FollowNewLimit = 200

// FollowSetPage reads again a page that f selected (prev, read with o) in
// one round trip: a ZSCORE of each member shown and, for the first page
// newest first, the members scored at or above its first one
// (ZREVRANGEBYSCORE, at most FollowNewLimit). A member that left the set
// leaves the page, one whose score changed takes its new one, and the new
// members f selects come in at the top, the page cut to its limit. Total
// is prev's less the members that left plus those that came. Members that
// came in elsewhere in the set, or that a full page of them pushed out of
// the range read, are not seen: a read of the page with FilterSetPage
// counts them again.
func FollowSetPage(ctx context.Context, c redis.Conn, keys Keys, set model.SetName, f SetFilter, prev SetPage, o PageOptions) (SetPage, error) {
	key := SetKey(keys, set)
	top := prev.Offset == 0 && o.newestFirst(set)
	for _, sj := range prev.Jobs {
		if err := c.Send("ZSCORE", key, sj.Raw); err != nil {
			return prev, fmt.Errorf("read %s: %w", key, err)
		}
	}
	if top {
		from := "-inf"
		if len(prev.Jobs) > 0 {
			from = prev.Jobs[0].ScoreText
		}
		if err := c.Send("ZREVRANGEBYSCORE", key, "+inf", from, "WITHSCORES", "LIMIT", 0, FollowNewLimit); err != nil {
			return prev, fmt.Errorf("read %s: %w", key, err)
		}
	}
	if err := c.Flush(); err != nil {
		return prev, fmt.Errorf("read %s: %w", key, err)
	}
	rs := make([]reply, len(prev.Jobs), len(prev.Jobs)+1)
	if top {
		rs = rs[:len(prev.Jobs)+1]
	}
	if err := receiveInto(ctx, c, rs); err != nil {
		return prev, fmt.Errorf("read %s: %w", key, err)
	}
	page := SetPage{Set: set, Offset: prev.Offset, Total: prev.Total}
	kept := make([]model.SetJob, 0, len(prev.Jobs))
	for i, sj := range prev.Jobs {
		score, err := redis.Bytes(rs[i].v, rs[i].err)
		switch {
		case errors.Is(err, redis.ErrNil):
			page.Total-- // it left the set
			continue
		case err != nil:
			return prev, fmt.Errorf("zscore %s: %w", key, err)
		case string(score) != sj.ScoreText:
			sj = model.ParseSetJob(set, sj.Raw, string(score))
		}
		kept = append(kept, sj)
	}
	var came []model.SetJob
	if top {
		vals, err := redis.Values(rs[len(prev.Jobs)].v, rs[len(prev.Jobs)].err)
		if err != nil {
			return prev, fmt.Errorf("read %s: %w", key, err)
		}
		pairs, err := withScores(vals)
		if err != nil {
			return prev, fmt.Errorf("read %s: %w", key, err)
		}
		for _, sj := range model.ParseSetJobs(set, pairs) {
			if f.Match(sj) && f.Query.MatchSetJob(sj) && !holdsMember(prev.Jobs, sj.Raw) {
				came = append(came, sj)
			}
		}
	}
	page.Total += int64(len(came))
	came = append(came, kept...)
	jobs := came
	less := naturalLess(o.newestFirst(set))
	sort.SliceStable(jobs, func(i, j int) bool { return less(jobs[i], jobs[j]) })
	page.Jobs = jobs[:min(len(jobs), o.limit())]
	return page, nil
}

// holdsMember reports whether jobs holds a member of these bytes.
func holdsMember(jobs []model.SetJob, raw []byte) bool {
	for _, sj := range jobs {
		if bytes.Equal(sj.Raw, raw) {
			return true
		}
	}
	return false
}

// FollowSetPage reads again a filtered page (FollowSetPage).
func (c *Client) FollowSetPage(ctx context.Context, set model.SetName, f SetFilter, prev SetPage, o PageOptions) (SetPage, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return prev, c.wrap(err)
	}
	defer conn.Close()
	p, err := FollowSetPage(ctx, conn, c.keys, set, f, prev, o)
	return p, c.wrap(err)
}
