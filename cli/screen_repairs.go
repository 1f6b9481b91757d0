package cli

// This file owns the journal of the screen's repairs (x and X reap, R
// requeues orphans, L repairs locks): as the commands do, the values
// before of what each touches are written before its first script call,
// so that `history` shows them, though undo refuses them.

import (
	"context"
	"io"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// journalledRepairs runs the screen's repairs with r, each journalled in j.
type journalledRepairs struct {
	r    *reaper.Reaper
	pool *redis.Pool
	j    *screenJournal
}

// start starts the journal of a repair and writes its values before.
func (s journalledRepairs) start(ctx context.Context, op, command string, targets []string, scope reaper.RepairScope) (*repairJournal, error) {
	w, err := s.j.create(op, command, targets)
	if err != nil {
		return nil, err
	}
	return beginRepairJournal(ctx, io.Discard, "", w, s.pool, s.j.namespace, command, scope)
}

func (s journalledRepairs) Reap(ctx context.Context, plan reaper.Plan, progress reaper.Progress) (reaper.Result, error) {
	ids := make([]string, len(plan.Pools))
	for i, pp := range plan.Pools {
		ids[i] = pp.PoolID
	}
	jr, err := s.start(ctx, journal.OpReap, "screen reap", ids, reaper.ReapScope(plan, redisq.NewKeys(s.j.namespace)))
	if err != nil {
		return reaper.Result{}, err
	}
	res, err := s.r.Reap(ctx, plan, progress)
	res.Journal = jr.w.ID()
	result := resultText(func(w io.Writer) { reaper.RenderReapResult(w, res) })
	return res, jr.finish(res.TotalMoved(), result, err)
}

func (s journalledRepairs) Requeue(ctx context.Context, plan reaper.RequeuePlan, progress reaper.Progress) (reaper.RequeueResult, error) {
	lists := make([]string, len(plan.Lists))
	for i, l := range plan.Lists {
		lists[i] = l.Key
	}
	jr, err := s.start(ctx, journal.OpOrphans, "screen requeue", lists, reaper.RequeueScope(plan))
	if err != nil {
		return reaper.RequeueResult{}, err
	}
	res, err := s.r.Requeue(ctx, plan, progress)
	res.Journal = jr.w.ID()
	result := resultText(func(w io.Writer) { reaper.RenderRequeueResult(w, res) })
	return res, jr.finish(res.TotalMoved(), result, err)
}

func (s journalledRepairs) RepairLocks(ctx context.Context, plan reaper.LockRepairPlan) (reaper.LockRepairResult, error) {
	names := make([]string, len(plan.Jobs))
	for i, j := range plan.Jobs {
		names[i] = j.JobName
	}
	jr, err := s.start(ctx, journal.OpRepairLocks, "screen repair-locks", names, reaper.LockRepairScope(plan))
	if err != nil {
		return reaper.LockRepairResult{}, err
	}
	res, err := s.r.RepairLocks(ctx, plan)
	res.Journal = jr.w.ID()
	result := resultText(func(w io.Writer) { reaper.RenderLockRepairResult(w, res) })
	return res, jr.finish(0, result, err)
}
