package exporter

import (
	"context"
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
type RedisSource struct {
	namespace string
	pool      *redis.Pool
	client    *redisq.Client
	scanCount int
}

// NewRedisSource checks the options (address, CA file) without connecting.
// deadAfter is the cut-off of a dead pool (model.DefaultDeadAfter when not
// positive). Close it when done.
func NewRedisSource(opts redisq.Options, namespace string, deadAfter time.Duration) (*RedisSource, error) {
	opts.ReadOnly = true
	d, err := redisq.NewDialer(opts)
	if err != nil {
		return nil, err
	}
	pool := d.Pool()
	client := redisq.NewClient(pool, namespace, deadAfter)
	return &RedisSource{namespace: namespace, pool: pool, client: client, scanCount: redisq.DefaultScanCount}, nil
}

// Target is the source as the exporter's target of the given name.
func (r *RedisSource) Target(name string) Target {
	return Target{Name: name, Namespace: r.namespace, Reader: r, Orphans: r}
}

// Read reads one snapshot (redisq.ReadSnapshot).
func (r *RedisSource) Read(ctx context.Context) (*model.Snapshot, error) {
	return r.client.Snapshot(ctx)
}

// ScanOrphans walks the keyspace as the screen's background scan does: one
// SCAN call at a time, pausing redisq.ScanPause of each call's duration
// after it so that other clients keep most of Redis's time.
func (r *RedisSource) ScanOrphans(ctx context.Context) ([]model.InProgressList, error) {
	conn, err := r.pool.GetContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("orphan scan: %w", err)
	}
	defer conn.Close()
	s := redisq.NewOrphanScan(r.client.Keys(), r.scanCount)
	for {
		start := time.Now()
		done, err := s.Step(ctx, conn)
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		pause := time.NewTimer(redisq.ScanPause(time.Since(start)))
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

// Close closes the source's connections.
func (r *RedisSource) Close() error { return r.pool.Close() }
