package cli

// This file gives the screen's queue view its writes by query: the delete
// and the park of the jobs a query matches, planned by reaper.PlanDrain and
// run by reaper.DrainExecutor as `jobs queue JOB delete|park --where` runs
// them, journalled the same way so that history lists them and undo puts
// them back.

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// screenDrainer plans and runs the queue view's drains, each on a
// connection of the write pool; journalled in j (none when j is nil).
type screenDrainer struct {
	pool  *redis.Pool
	keys  redisq.Keys
	batch int
	j     *screenJournal
}

// ScreenDrainer is the queue view's drainer (a tui.QueueDrainer, offered by
// the screen's actor) on namespace, at most batch jobs per script call.
func ScreenDrainer(pool *redis.Pool, namespace string, batch int) tui.QueueDrainer {
	return screenDrainer{pool: pool, keys: redisq.NewKeys(namespace), batch: batch}
}

func (s screenDrainer) PlanDrain(ctx context.Context, action reaper.DrainAction, job string, q *model.Query) (reaper.DrainPlan, error) {
	c, err := s.pool.GetContext(ctx)
	if err != nil {
		return reaper.DrainPlan{}, fmt.Errorf("plan %s: %w", action, err)
	}
	defer c.Close()
	return reaper.PlanDrain(ctx, c, s.keys, action, job, q)
}

func (s screenDrainer) ExecuteDrain(ctx context.Context, p reaper.DrainPlan, progress reaper.JobsProgress) (reaper.DrainResult, error) {
	c, err := s.pool.GetContext(ctx)
	if err != nil {
		return reaper.DrainResult{}, fmt.Errorf("%s: %w", p.Action, err)
	}
	defer c.Close()
	x := reaper.NewDrainExecutor(p.Namespace, s.batch)
	if s.j == nil {
		return x.Execute(ctx, c, p, progress)
	}
	op := journal.OpQueueDrain
	if p.Action == reaper.DrainPark {
		op = journal.OpQueuePark
	}
	w, err := s.j.create(op, "screen jobs queue "+string(p.Action)+" --where", reaper.DrainAuditTargets(p))
	if err != nil {
		return reaper.DrainResult{}, err
	}
	res, execErr := x.WithJournal(w).Execute(ctx, c, p, progress)
	res.Journal = w.ID()
	return res, closeScreenJournal(w, res.Done, reaper.DrainAuditLine(p, res), execErr)
}
