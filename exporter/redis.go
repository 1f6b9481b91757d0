package exporter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// RedisSource reads a namespace from Redis for the exporter: a Reader and an
// OrphanScanner. Its connections refuse every command outside the read
// allow-list (redisq.ReadOnlyConn) whatever the options say, so the exporter
// cannot write.
//
// Every read and every scan dials a connection of its own and closes it
// after. A pooled connection is not used: when a read's context ends while
// redigo still waits for a reply, redigo's pool would send on the
// connection as it takes it back, while redigo's own reader is still
// reading from it.
type RedisSource struct {
	namespace string
	deadAfter time.Duration
	dialer    *redisq.Dialer
	scanCount int
	// tracker judges the job health of every read (nil: not judged);
	// longAfter is the stuck workers' cut-off.
	tracker   *redisq.HealthTracker
	longAfter time.Duration
}

// JudgeJobs makes every read judge the job health with limits (the
// failures followed from read to read, see redisq.HealthTracker), a job
// running longer than longAfter being stuck while others wait.
func (r *RedisSource) JudgeJobs(limits model.HealthLimits, longAfter time.Duration) {
	r.tracker = redisq.NewHealthTracker(r.namespace, limits)
	r.longAfter = longAfter
}

// NewRedisSource checks the options (address, CA file) without connecting.
// deadAfter is the cut-off of a dead pool (model.DefaultDeadAfter when not
// positive).
func NewRedisSource(opts redisq.Options, namespace string, deadAfter time.Duration) (*RedisSource, error) {
	opts.ReadOnly = true
	if deadAfter <= 0 {
		deadAfter = model.DefaultDeadAfter
	}
	d, err := redisq.NewDialer(opts)
	if err != nil {
		return nil, err
	}
	return &RedisSource{namespace: namespace, deadAfter: deadAfter, dialer: d, scanCount: redisq.DefaultScanCount}, nil
}

// Target is the source as the exporter's target of the given name.
func (r *RedisSource) Target(name string) Target {
	return Target{Name: name, Namespace: r.namespace, Reader: r, Orphans: r}
}

// Read reads one snapshot (redisq.ReadSnapshot).
func (r *RedisSource) Read(ctx context.Context) (*model.Snapshot, error) {
	conn, err := r.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	snap, err := redisq.ReadSnapshot(ctx, conn, r.namespace, r.deadAfter)
	if err == nil {
		snap.Health, err = redisq.ReadHealth(ctx, conn, redisq.NewKeys(r.namespace))
	}
	if err == nil {
		var v model.Variant
		if v, err = redisq.ReadVariant(ctx, conn, redisq.NewKeys(r.namespace), snap); err == nil {
			snap.Variant = &v
		}
	}
	if r.longAfter > 0 {
		snap.LongAfter = r.longAfter
	}
	if err == nil {
		snap.Findings = model.Findings(snap)
		if r.tracker != nil {
			err = r.tracker.Assess(ctx, conn, snap)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", r.namespace, r.dialer.Endpoint(), err)
	}
	return snap, nil
}

// dial connects with a connection that refuses writes (the dialer's options
// say ReadOnly), and makes sure of it.
func (r *RedisSource) dial(ctx context.Context) (redis.Conn, error) {
	if !r.dialer.ReadOnly() {
		return nil, errors.New("exporter: the dialer is not read-only")
	}
	return r.dialer.Dial(ctx)
}

// ScanOrphans walks the keyspace as the screen's background scan does: one
// SCAN call at a time, pausing model.ScanPause of each call's duration
// after it so that other clients keep most of Redis's time.
func (r *RedisSource) ScanOrphans(ctx context.Context) ([]model.InProgressList, error) {
	conn, err := r.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("orphan scan: %w", err)
	}
	defer conn.Close()
	s := redisq.NewOrphanScan(redisq.NewKeys(r.namespace), r.scanCount)
	for {
		start := time.Now()
		done, err := s.Step(ctx, conn)
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		pause := time.NewTimer(model.ScanPause(time.Since(start)))
		select {
		case <-ctx.Done():
			pause.Stop()
			return nil, fmt.Errorf("orphan scan: %w", ctx.Err())
		case <-pause.C:
		}
	}
	res, err := s.Finish(ctx, conn)
	if err != nil {
		return nil, err
	}
	return res.Orphans, nil
}
