// The whole read of explain: the snapshot and the set facts on one
// connection, the orphan scan and the unique keys' scans beside them on
// connections of their own.

package redisq

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// ExplainRead is what explain reads: the snapshot with the orphans the
// scan found, the set facts dated by the snapshot's Redis time, and each
// job type's unique keys.
type ExplainRead struct {
	Snap   *model.Snapshot
	Facts  model.ExplainFacts
	Unique map[string][]model.UniqueKey
	// Waiting are, by job type with unique keys, the unique keys its
	// queued jobs hold; QueueRead says the whole queue was read (one of
	// at most MaxWaitingRead jobs).
	Waiting   map[string]map[string]bool
	QueueRead map[string]bool
}

// MaxWaitingRead is the longest queue read for the unique keys its jobs
// hold: past it, which keys have a copy waiting is not told.
const MaxWaitingRead = 1000

// ReadExplain takes the snapshot (three round trips, the third for the
// workers' observations, a fourth only to confirm drift) while, on
// connections of their own, the set facts are read in one round trip and
// the orphan scan and the unique keys' scans of jobs walk the keyspace
// (SCAN, count keys a call). The deaths of the facts are dated by the
// snapshot's Redis time once it is known. With no jobs (a pool's
// explanation) neither the set facts nor unique keys are read. The
// snapshot is analysed as ReadSnapshot leaves it: its findings do not
// count the orphans the scan found.
func (c *Client) ReadExplain(ctx context.Context, jobs []string, count int) (*ExplainRead, error) {
	rd := &ExplainRead{Unique: map[string][]model.UniqueKey{}, Waiting: map[string]map[string]bool{}, QueueRead: map[string]bool{}}
	var orph OrphanResult
	var mu sync.Mutex
	var scanErr error
	fail := func(err error) {
		mu.Lock()
		if scanErr == nil {
			scanErr = err
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var err error
		if orph, err = c.ScanOrphans(ctx, count, nil); err != nil {
			fail(err)
		}
	}()
	if len(jobs) > 0 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			var err error
			if rd.Facts, err = c.explainSets(ctx); err != nil {
				fail(err)
			}
		}()
		go func() {
			defer wg.Done()
			for _, j := range jobs {
				u, err := c.UniqueKeys(ctx, j, count)
				if err != nil {
					fail(err)
					return
				}
				var waiting map[string]bool
				read := false
				if len(u) > 0 {
					if waiting, read, err = c.waitingUnique(ctx, j); err != nil {
						fail(err)
						return
					}
				}
				mu.Lock()
				rd.Unique[j], rd.Waiting[j], rd.QueueRead[j] = u, waiting, read
				mu.Unlock()
			}
		}()
	}
	snap, err := c.Snapshot(ctx)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if scanErr != nil {
		return nil, scanErr
	}
	rd.Facts.Dead = deadSince(rd.Facts.Dead, snap.RedisTime.Add(-ExplainDeadWindow))
	snap.Orphans = orph.Orphans
	snap.Warnings = append(snap.Warnings, orph.Warnings...)
	rd.Snap = snap
	return rd, nil
}

// explainSets runs readExplainSets on a connection of its own.
func (c *Client) explainSets(ctx context.Context) (model.ExplainFacts, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return model.ExplainFacts{}, c.wrap(err)
	}
	defer conn.Close()
	f, err := readExplainSets(ctx, conn, c.keys)
	return f, c.wrap(err)
}

// waitingUnique reads job's queue, when it holds at most MaxWaitingRead
// jobs, and returns the unique keys its jobs hold and true; a longer queue
// is not read (nil, false).
func (c *Client) waitingUnique(ctx context.Context, job string) (map[string]bool, bool, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, false, c.wrap(err)
	}
	defer conn.Close()
	key := c.keys.Queue(job)
	n, err := redis.Int64(redis.DoContext(conn, ctx, "LLEN", key))
	var re redis.Error
	switch {
	case errors.As(err, &re):
		return nil, false, nil // not a list: the snapshot says so
	case err != nil:
		return nil, false, c.wrap(fmt.Errorf("read %s: %w", key, err))
	case n > MaxWaitingRead:
		return nil, false, nil
	}
	items, err := redis.ByteSlices(redis.DoContext(conn, ctx, "LRANGE", key, 0, n-1))
	if err != nil {
		return nil, false, c.wrap(fmt.Errorf("read %s: %w", key, err))
	}
	out := map[string]bool{}
	for _, it := range items {
		f, _ := model.ParseJobFields(it)
		if f == nil {
			continue
		}
		if k, ok, err := f.UniqueKeyIn(c.keys.Prefix()); ok && err == nil {
			out[k] = true
		}
	}
	return out, true, nil
}
