package cli

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// This file gives the screen's Jobs view its summary scans and its writes
// (its pages come from *redisq.Client as they are).

// screenSetScanner runs the Jobs view's summary scans: each on a connection
// dialled for it alone, one step of the walk (redisq.SetScan) per Step.
type screenSetScanner struct {
	dial func(ctx context.Context) (redis.Conn, error)
	keys redisq.Keys
}

// ScreenSetScanner is the summary scanner of the screen's Jobs view
// (tui.Options.SetScanner): each scan of a job set of namespace on a
// connection of its own from dial.
func ScreenSetScanner(dial func(ctx context.Context) (redis.Conn, error), namespace string) tui.SetScanner {
	return screenSetScanner{dial: dial, keys: redisq.NewKeys(namespace)}
}

// StartSetScan starts the walk of set for the members f selects: a walk
// of the score range when its query bounds the time, else of the whole
// set (redisq.NewSetWalk).
func (s screenSetScanner) StartSetScan(ctx context.Context, set model.SetName, f redisq.SetFilter) (tui.SetScan, error) {
	c, err := s.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", set, err)
	}
	return &screenSetScan{c: c, s: redisq.NewSetWalk(s.keys, set, f, redisq.DefaultSetScanCount)}, nil
}

// screenSetScan is one summary scan and its connection.
type screenSetScan struct {
	c redis.Conn
	s redisq.SetWalk
}

func (s *screenSetScan) Step(ctx context.Context) ([]model.SetJob, redisq.SetScanProgress, error) {
	jobs, err := s.s.Step(ctx, s.c)
	return jobs, s.s.Progress(), err
}

func (s *screenSetScan) Close() error { return s.c.Close() }

// screenJobs plans and runs the Jobs view's requeues and deletes, each on a
// connection of the write pool.
type screenJobs struct {
	pool *redis.Pool
	keys redisq.Keys
	exec *reaper.JobsExecutor
}

// ScreenJobs plans and runs the requeues and deletes of the screen's Jobs
// view (the screen's tui.Writes.Jobs) on namespace, with connections of pool, at most
// batch members per script call.
func ScreenJobs(pool *redis.Pool, namespace string, batch int) tui.JobsActor {
	return screenJobs{pool: pool, keys: redisq.NewKeys(namespace), exec: reaper.NewJobsExecutor(namespace, batch)}
}

func (j screenJobs) PlanJobs(ctx context.Context, action reaper.JobsAction, t reaper.JobsTarget) (reaper.JobsPlan, error) {
	c, err := j.pool.GetContext(ctx)
	if err != nil {
		return reaper.JobsPlan{}, fmt.Errorf("plan %s: %w", action, err)
	}
	defer c.Close()
	return reaper.PlanJobs(ctx, c, j.keys, action, t)
}

func (j screenJobs) ExecuteJobs(ctx context.Context, p reaper.JobsPlan, progress reaper.JobsProgress) (reaper.JobsResult, error) {
	c, err := j.pool.GetContext(ctx)
	if err != nil {
		return reaper.JobsResult{}, fmt.Errorf("%s: %w", p.Action, err)
	}
	defer c.Close()
	return j.exec.Execute(ctx, c, p, progress)
}
