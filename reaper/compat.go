// Names kept while callers outside this package move to the Reaper methods;
// each forwards to the one implementation.

package reaper

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/redisq"
)

// Repairer is Reaper.
//
// Deprecated: use Reaper.
type Repairer = Reaper

// NewRepairer is NewReaper.
//
// Deprecated: use NewReaper.
func NewRepairer(conns redisq.Conns, namespace string, batch int) *Reaper {
	return NewReaper(conns, namespace, batch)
}

// Execute is Reap.
//
// Deprecated: use Reap.
func (r *Reaper) Execute(ctx context.Context, plan Plan, progress Progress) (Result, error) {
	return r.Reap(ctx, plan, progress)
}

// PlanRequeue is Reaper.PlanRequeue on connection c.
//
// Deprecated: use NewReaper(redisq.OneConn(c), ...).PlanRequeue.
func PlanRequeue(ctx context.Context, c redis.Conn, keys redisq.Keys, listKeys []string, deadAfter time.Duration) (RequeuePlan, error) {
	return newReaper(redisq.OneConn(c), keys, 0).PlanRequeue(ctx, listKeys, deadAfter)
}

// ExecuteRequeue is Reaper.Requeue on connection c, batch jobs per script
// call (at least 1).
//
// Deprecated: use NewReaper(redisq.OneConn(c), namespace, batch).Requeue.
func ExecuteRequeue(ctx context.Context, c redis.Conn, keys redisq.Keys, plan RequeuePlan, batch int, progress Progress) (RequeueResult, error) {
	return newReaper(redisq.OneConn(c), keys, max(batch, 1)).Requeue(ctx, plan, progress)
}

// PlanRepairLocks is Reaper.PlanRepairLocks on connection c.
//
// Deprecated: use NewReaper(redisq.OneConn(c), ...).PlanRepairLocks.
func PlanRepairLocks(ctx context.Context, c redis.Conn, keys redisq.Keys, jobs []string) (LockRepairPlan, error) {
	return newReaper(redisq.OneConn(c), keys, 0).PlanRepairLocks(ctx, jobs)
}

// ExecuteRepairLocks is Reaper.RepairLocks on connection c.
//
// Deprecated: use NewReaper(redisq.OneConn(c), ...).RepairLocks.
func ExecuteRepairLocks(ctx context.Context, c redis.Conn, keys redisq.Keys, plan LockRepairPlan) (LockRepairResult, error) {
	return newReaper(redisq.OneConn(c), keys, 0).RepairLocks(ctx, plan)
}
