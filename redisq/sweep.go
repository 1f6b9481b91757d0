// ReadSweep: the whole namespace but the workers' observations, read as
// ReadSnapshot reads it, in steps with pauses between them, so that the
// screen's full read (every in-progress list, and so the whole drift
// check) never holds Redis for long.

package redisq

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// SweepStepCommands is about how many commands one step of a sweep sends:
// the job types of a step are as many as fit (at least one).
const SweepStepCommands = 1024

// ReadSweep reads what ReadSnapshot reads but the workers' observations,
// with the same drift check (each job type's lock, lock_info and
// in-progress lengths next to each other, drift re-read before it is
// reported), in steps: the sets, the heartbeats, then job types by groups
// of about SweepStepCommands commands. After each step it waits pause(step's duration)
// (model.ScanPause: three times as long), as the orphan scan does, so that
// the other clients of Redis (the screen's own poll among them) wait at
// most one step's time behind it. ctx ends it at any pause.
//
// Its Workers is nil (not read): the screen takes only the drift from a
// sweep, and reads the observations in its regular poll while it shows
// them (PollRequest.Workers); read here, they would be a step of one
// HGETALL per worker, far more than a step's SweepStepCommands, for a
// result nothing uses.
func ReadSweep(ctx context.Context, conn redis.Conn, namespace string, deadAfter time.Duration, pause func(time.Duration) time.Duration) (*model.Snapshot, error) {
	rd := &snapshotReader{ctx: ctx, conn: conn, keys: NewKeys(namespace), deadAfter: deadAfter,
		snap: &model.Snapshot{Namespace: namespace}}
	step := func(f func() error) error {
		start := time.Now()
		if err := f(); err != nil {
			return err
		}
		return sleepCtx(ctx, pause(time.Since(start)))
	}
	if err := step(rd.readSets); err != nil {
		return nil, err
	}
	if err := step(rd.sweepHeartbeats); err != nil {
		return nil, err
	}
	per := 6 + len(rd.poolIDs)
	rd.replies = make([]reply, per)
	rd.jobTypes = make([]model.JobType, 0, len(rd.known))
	group := max(1, SweepStepCommands/per)
	for i := 0; i < len(rd.known); i += group {
		jobs := rd.known[i:min(i+group, len(rd.known))]
		if err := step(func() error { return rd.sweepJobTypes(jobs) }); err != nil {
			return nil, err
		}
	}
	if err := rd.sendUnregisteredJobTypes(); err != nil {
		return nil, err
	}
	if err := rd.readUnregisteredJobTypes(); err != nil {
		return nil, err
	}
	return rd.finish(deadAfter)
}

// sweepHeartbeats is a sweep's step 2: every heartbeat.
func (rd *snapshotReader) sweepHeartbeats() error {
	rd.snap.Pools = make([]model.Pool, len(rd.poolIDs))
	for i, id := range rd.poolIDs {
		rd.snap.Pools[i].ID = id
	}
	hb := newKeyBuf(rd.keys.Heartbeat(""), rd.poolIDs, "")
	for i, id := range rd.poolIDs {
		if err := rd.conn.Send("HGETALL", hb.arg(id)...); err != nil {
			drain(rd.ctx, rd.conn, i)
			return fmt.Errorf("send HGETALL: %w", err)
		}
	}
	if err := rd.conn.Flush(); err != nil {
		return fmt.Errorf("send to redis: %w", err)
	}
	return rd.readHeartbeats(len(rd.poolIDs))
}

// sweepJobTypes is one step of job types: sendJobType and readJobType for
// each, in one round trip.
func (rd *snapshotReader) sweepJobTypes(jobs []string) error {
	sent := 0
	for _, job := range jobs {
		n, err := sendJobType(rd.conn, rd.keys, job, rd.poolIDs)
		sent += n
		if err != nil {
			drain(rd.ctx, rd.conn, sent)
			return err
		}
	}
	if err := rd.conn.Flush(); err != nil {
		return fmt.Errorf("send to redis: %w", err)
	}
	for i, job := range jobs {
		rd.jobTypes = append(rd.jobTypes, model.JobType{Name: job})
		if err := readJobType(rd.ctx, rd.conn, rd.keys, &rd.jobTypes[len(rd.jobTypes)-1], rd.ps, rd.replies); err != nil {
			drain(rd.ctx, rd.conn, (len(jobs)-i-1)*len(rd.replies))
			return err
		}
	}
	return nil
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Sweep reads the namespace with ReadSweep, paced by model.ScanPause, on a
// connection of its own (never the one a poll is using).
func (c *Client) Sweep(ctx context.Context) (*model.Snapshot, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	snap, err := ReadSweep(ctx, conn, c.namespace, c.deadAfter, model.ScanPause)
	if err == nil {
		// Which build wrote the namespace, for the screen's header: a
		// hundred commands at most, once a sweep.
		var v model.Variant
		if v, err = ReadVariant(ctx, conn, c.keys, snap); err == nil {
			snap.Variant = &v
		}
	}
	return snap, c.wrap(err)
}
