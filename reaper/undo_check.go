package reaper

// This file owns the read an undo plan makes before it is shown: where
// each item is now. A requeued job no longer in its queue was taken by a
// worker (or put back already); a deleted job found in its set is back
// already. The plan lists only what is still where the action left it, and
// counts the rest, so that its dialog asks about what the undo will do.

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
)

// checkBatch is how many items one pipelined round trip of the check reads.
const checkBatch = 500

// itemPlace is where an item of a plan is now.
type itemPlace int

const (
	placeLeft    itemPlace = iota // where the action left it: to put back
	placeBack                     // back where it was before the action
	placeMovedOn                  // neither: moved on since, left alone
)

// checkInPlace reads, pipelined in batches, where each requeued or
// deleted item is now, and keeps in p.Items only those still where the
// action left it; the others are counted in Already and MovedOn. Queue
// deletes and pauses are kept: their scripts decide.
func (p *UndoPlan) checkInPlace(ctx context.Context, c redis.Conn) error {
	if p.Op != journal.OpRequeue && p.Op != journal.OpDelete {
		return nil
	}
	places := make([]itemPlace, len(p.Items))
	for start := 0; start < len(p.Items); start += checkBatch {
		end := min(start+checkBatch, len(p.Items))
		if err := p.checkBatch(ctx, c, start, end, places); err != nil {
			return err
		}
	}
	kept := p.Items[:0]
	for i, it := range p.Items {
		switch places[i] {
		case placeBack:
			p.Already++
		case placeMovedOn:
			p.MovedOn++
			if len(p.MovedOnItems) < ReportLimit {
				p.MovedOnItems = append(p.MovedOnItems, it.Item)
			}
		default:
			kept = append(kept, it)
			continue
		}
		if it.Maybe {
			p.Maybe--
		}
		if p.Op == journal.OpRequeue && it.Item.New == nil {
			p.NotFound--
		}
	}
	p.Items = kept
	return nil
}

// checkBatch reads the place of items [start, end) in one round trip.
func (p *UndoPlan) checkBatch(ctx context.Context, c redis.Conn, start, end int, places []itemPlace) error {
	type sent struct{ lpos bool }
	var sends []sent
	for _, it := range p.Items[start:end] {
		var s sent
		if p.Op == journal.OpRequeue && it.Item.New != nil {
			if err := c.Send("LPOS", it.Item.Queue, it.Item.New); err != nil {
				return fmt.Errorf("undo: read %s: %w", it.Item.Queue, err)
			}
			s.lpos = true
		}
		if err := c.Send("ZSCORE", it.Item.Set, it.Item.Old); err != nil {
			return fmt.Errorf("undo: read %s: %w", it.Item.Set, err)
		}
		sends = append(sends, s)
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("undo: read where the items are: %w", err)
	}
	// Every reply is received, even after an error, so that the
	// connection is left with none pending.
	var firstErr error
	for k, s := range sends {
		it := p.Items[start+k].Item
		inQueue := false
		if s.lpos {
			pos, err := redis.ReceiveContext(c, ctx)
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("undo: read %s: %w", it.Queue, err)
			}
			inQueue = pos != nil
		}
		score, err := redis.Bytes(redis.ReceiveContext(c, ctx))
		if err != nil && !errors.Is(err, redis.ErrNil) && firstErr == nil {
			firstErr = fmt.Errorf("undo: read %s: %w", it.Set, err)
		}
		inSet := err == nil
		places[start+k] = place(p.Op, it, inQueue, inSet && sameScore(score, it.Score))
	}
	return firstErr
}

// place is where an item is, from what the check read: whether a
// requeued job's pushed bytes are in its queue, and whether the old bytes
// are in the set at the old score.
func place(op string, it journal.Item, inQueue, inSet bool) itemPlace {
	switch {
	case op == journal.OpRequeue && inQueue:
		return placeLeft
	case inSet:
		return placeBack
	case op == journal.OpRequeue:
		return placeMovedOn
	}
	return placeLeft // a deleted job not in its set: to put back
}

// sameScore is whether a score Redis replied equals the journal's.
func sameScore(got []byte, want string) bool {
	if string(got) == want {
		return true
	}
	g, err1 := strconv.ParseFloat(string(got), 64)
	w, err2 := strconv.ParseFloat(want, 64)
	return err1 == nil && err2 == nil && g == w
}
