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
func WalkScores(ctx context.Context, conn redis.Conn, key string, set model.SetName, from, to int64, each func([]model.SetJob)) error {
	min := strconv.FormatInt(from, 10)
	skip := 0
	for {
		r, err := redis.Values(redis.DoContext(conn, ctx, "ZRANGEBYSCORE", key, min, to, "WITHSCORES", "LIMIT", skip, TimelineStep))
		if err != nil {
			if isWrongType(err) {
				return nil
			}
			return fmt.Errorf("read %s: %w", key, err)
		}
		pairs, err := withScores(r)
		if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		if len(pairs) == 0 {
			return nil
		}
		each(model.ParseSetJobs(set, pairs))
		if len(pairs)/2 < TimelineStep {
			return nil
		}
		last := pairs[len(pairs)-1]
		same := 0
		for i := len(pairs) - 1; i > 0 && bytes.Equal(pairs[i], last); i -= 2 {
			same++
		}
		if string(last) == min {
			skip += same
		} else {
			min, skip = string(last), same
		}
	}
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
