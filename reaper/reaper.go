// Package reaper plans (dry runs) and executes the repairs workq-tui can make:
// reap a dead pool, requeue an in-progress list, repair a job type's lock.
// Plans from a snapshot are pure functions (NewPlan, NewRequeuePlan,
// NewLockRepairPlan); everything that talks to Redis is a method of Reaper.
// Execution is by Lua scripts in lua/, embedded (scripts.go). Every plan and
// result has one renderer (render*.go), used by the CLI and the screen.
package reaper

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/redisq"
)

// DefaultBatch is how many jobs one script call moves at most.
const DefaultBatch = 1000

// Reaper plans from Redis and executes plans against one namespace, on
// connections taken from its connection source (one per pool reaped, one
// per requeue or lock repair).
type Reaper struct {
	conns redisq.Conns
	keys  redisq.Keys
	batch int
	// Observe, when set, is called with the duration of every reap script
	// call (for benchmarks).
	Observe func(time.Duration)

	scripts scripts
}

// NewReaper returns a Reaper for a namespace; batch < 1 means DefaultBatch.
// *redis.Pool (redisq.Dialer.Pool) is a connection source; redisq.OneConn
// lends a single connection.
func NewReaper(conns redisq.Conns, namespace string, batch int) *Reaper {
	return newReaper(conns, redisq.NewKeys(namespace), batch)
}

func newReaper(conns redisq.Conns, keys redisq.Keys, batch int) *Reaper {
	if batch < 1 {
		batch = DefaultBatch
	}
	return &Reaper{conns: conns, keys: keys, batch: batch, scripts: newScripts()}
}

// Batch is the most jobs one script call moves.
func (r *Reaper) Batch() int { return r.batch }

// conn takes a connection from the source; what names the action in the
// error.
func (r *Reaper) conn(ctx context.Context, what string) (redis.Conn, error) {
	c, err := r.conns.GetContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return c, nil
}
