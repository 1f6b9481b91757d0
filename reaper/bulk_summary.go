package reaper

// This file owns what a bulk plan tells about the members it matched: how
// many, by job type and by error, and the scores they span.

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// BulkSummary counts the members a bulk plan matched, those it takes and
// those it leaves alone alike.
type BulkSummary struct {
	// Sum counts them by job type and by normalised error.
	Sum *model.SetSummary
	// First and Last are the matched members of the lowest and highest
	// score (Valid false when none had its score read).
	First, Last model.SetJob
	Valid       bool

	// first and last are the walk's first and last members when it read
	// no scores: a walk goes in score order.
	first, last model.SetJob
	unscored    bool
}

func newBulkSummary() BulkSummary { return BulkSummary{Sum: model.NewSetSummary("")} }

// add counts one member matched.
func (b *BulkSummary) add(sj model.SetJob) {
	if b.Sum == nil {
		b.Sum = model.NewSetSummary(sj.Set)
	}
	b.Sum.Set = sj.Set
	b.Sum.Add(sj)
	if sj.ScoreText == "" {
		if !b.unscored {
			b.first = sj
		}
		b.unscored, b.last = true, sj
		return
	}
	if !b.Valid || sj.Score < b.First.Score {
		b.First = sj
	}
	if !b.Valid || sj.Score > b.Last.Score {
		b.Last = sj
	}
	b.Valid = true
}

// own gives the ends their own copy of their decoded fields, for a walk
// that reuses them at its next step (redisq.SetWalk.Reuse).
func (b *BulkSummary) own() {
	for _, sj := range []*model.SetJob{&b.First, &b.Last, &b.first, &b.last} {
		if sj.Job != nil {
			f := *sj.Job
			sj.Job = &f
		}
	}
}

// readSpan reads the scores of the first and last members of a walk that
// read none.
func (b *BulkSummary) readSpan(ctx context.Context, c redis.Conn, keys redisq.Keys, set model.SetName) error {
	if !b.unscored {
		return nil
	}
	scored, err := redisq.ReadScores(ctx, c, keys, set, []model.SetJob{b.first, b.last})
	if err != nil {
		return fmt.Errorf("read the span of the jobs: %w", err)
	}
	for _, sj := range scored {
		b.unscored = false
		if !b.Valid || sj.Score < b.First.Score {
			b.First = sj
		}
		if !b.Valid || sj.Score > b.Last.Score {
			b.Last = sj
		}
		b.Valid = true
	}
	return nil
}
