// The reads of the failure timeline: the dead set's window, walked by score
// in steps, and the whole retry set (its scores are due times, not times of
// failure, so every member's failed_at is read).

package redisq

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

// TimelineStep is how many members one ZRANGEBYSCORE of a timeline reads.
const TimelineStep = 1000

// WalkScores calls each with the members of key scored in [from, to], in
// score order, TimelineStep at a time. Each step starts at the last score
// read and skips the members at that score already seen, so members added
// or removed meanwhile shift nothing by more than their own number, and the
// walk never reads the part of the set outside the window.
//
// The next step is sent as soon as a full page arrived, and pages are
// parsed and handed to each on a goroutine of their own, so that Redis
// reads a step while this side parses the one before: each is called in
// order, one page at a time, and never after WalkScores returned.
func WalkScores(ctx context.Context, conn redis.Conn, key string, set model.SetName, from, to int64, each func([]model.SetJob)) error {
	pages := make(chan [][]byte, 2)
	parsed := make(chan struct{})
	go func() {
		defer close(parsed)
		for pairs := range pages {
			each(model.ParseSetJobs(set, pairs))
		}
	}()
	err := walkPages(ctx, conn, key, from, to, pages)
	close(pages)
	<-parsed
	return err
}

// walkPages sends the pages of WalkScores's walk, unparsed, to pages.
func walkPages(ctx context.Context, conn redis.Conn, key string, from, to int64, pages chan<- [][]byte) error {
	min := strconv.FormatInt(from, 10)
	skip := 0
	send := func() error {
		if err := conn.Send("ZRANGEBYSCORE", key, min, to, "WITHSCORES", "LIMIT", skip, TimelineStep); err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		if err := conn.Flush(); err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		return nil
	}
	if err := send(); err != nil {
		return err
	}
	rs := make([]reply, 1)
	for {
		if err := receiveInto(ctx, conn, rs); err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		if isWrongType(rs[0].err) {
			return nil
		}
		r, err := redis.Values(rs[0].v, rs[0].err)
		if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		pairs, err := withScores(r)
		if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		full := len(pairs)/2 >= TimelineStep
		if full {
			min, skip = stepAfter(pairs, min, skip)
			if err := send(); err != nil {
				return err
			}
		}
		if len(pairs) > 0 {
			pages <- pairs
		}
		if !full {
			return nil
		}
	}
}

// stepAfter is where the step after a full one of pairs (member, score...)
// read from min, skipping skip, starts: at its last score, skipping the
// members of that score read already.
func stepAfter(pairs [][]byte, min string, skip int) (string, int) {
	last := pairs[len(pairs)-1]
	same := 0
	for i := len(pairs) - 1; i > 0 && bytes.Equal(pairs[i], last); i -= 2 {
		same++
	}
	if string(last) == min {
		return min, skip + same
	}
	return string(last), same
}

// ReadTimeline takes the pools (the snapshot), then walks the dead set's
// window (narrowed by q's since: and until:) and the whole retry set on the
// same connection, counting only the jobs q matches (every job for an
// empty or nil query).
func ReadTimeline(ctx context.Context, conn redis.Conn, namespace string, deadAfter, since, bucket time.Duration, q *model.Query) (*model.Timeline, error) {
	snap, err := ReadSnapshot(ctx, conn, namespace, deadAfter)
	if err != nil {
		return nil, err
	}
	tl := model.NewTimeline(snap.RedisTime, since, bucket)
	keys := NewKeys(namespace)
	from, to := tl.From, tl.To-1
	if q != nil && q.HasSince {
		from = max(from, q.Since)
	}
	if q != nil && q.HasUntil {
		to = min(to, q.Until)
	}
	if from <= to {
		if err := WalkScores(ctx, conn, keys.Dead(), model.SetDead, from, to, matching(q, tl.AddDead)); err != nil {
			return nil, err
		}
	}
	// The retry set is scored by due time: every member is read.
	if err := WalkScores(ctx, conn, keys.Retry(), model.SetRetry, 0, 1<<53, matching(q, tl.AddRetry)); err != nil {
		return nil, err
	}
	tl.AddPools(snap.Pools)
	return tl, nil
}

// matching passes on to add only the jobs q matches (all of them for an
// empty or nil query).
func matching(q *model.Query, add func([]model.SetJob)) func([]model.SetJob) {
	if q == nil || q.Empty() {
		return add
	}
	return func(jobs []model.SetJob) {
		kept := make([]model.SetJob, 0, len(jobs))
		for _, sj := range jobs {
			if q.MatchSetJob(sj) {
				kept = append(kept, sj)
			}
		}
		add(kept)
	}
}
