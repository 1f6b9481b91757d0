package cli

// This file reads the live values a completion offers (job names, dead
// pools, in-progress lists, job IDs) from the Redis the command line names
// so far. It connects read-only whatever the command would do, never
// starts the demo, and gives up silently when the request's budget runs
// out: a shell prints nothing of it.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// liveSource reads one completion request's live values.
type liveSource struct {
	e   env
	cmd command
	fs  *flagSet
	ok  bool // the command line's flags parsed: they say which Redis
}

// completionTarget gives the completion the target a command embeds.
func (t *target) completionTarget() *target { return t }

// fetch runs read on a read-only connection to the command line's Redis
// and returns its candidates, or none when the command line names no Redis
// it can use, Redis fails, or ctx ends first (read is then abandoned, not
// waited for).
func (l *liveSource) fetch(ctx context.Context, read func(ctx context.Context, conn redis.Conn, t *target, deadAfter time.Duration) ([]candidate, error)) []candidate {
	if !l.ok {
		return nil
	}
	tr, ok := l.fs.runner.(interface{ completionTarget() *target })
	if !ok {
		return nil
	}
	t := tr.completionTarget()
	if t.demo || t.check(l.e) != nil {
		return nil
	}
	t.redis.ReadOnly = true
	if dl, ok := ctx.Deadline(); ok {
		t.redis.Timeout = min(t.redis.Timeout, time.Until(dl))
	}
	deadAfter := model.DefaultDeadAfter
	if d, err := t.fs.GetDuration("dead-after"); err == nil && d > 0 {
		deadAfter = d
	} else if t.deadAfter > 0 {
		deadAfter = t.deadAfter
	}
	got := make(chan []candidate, 1)
	go func() {
		d, stop, err := t.open(ctx)
		if err != nil {
			got <- nil
			return
		}
		defer stop()
		conn, err := d.Dial(ctx)
		if err != nil {
			got <- nil
			return
		}
		defer conn.Close()
		cands, err := read(ctx, conn, t, deadAfter)
		if err != nil {
			cands = nil
		}
		got <- cands
	}()
	select {
	case c := <-got:
		return c
	case <-ctx.Done():
		return nil
	}
}

// jobNames are the names in known_jobs.
func (l *liveSource) jobNames(ctx context.Context) []candidate {
	return l.fetch(ctx, func(ctx context.Context, conn redis.Conn, t *target, _ time.Duration) ([]candidate, error) {
		names, err := redis.Strings(redis.DoContext(conn, ctx, "SMEMBERS", redisq.NewKeys(t.namespace).KnownJobs()))
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		var out []candidate
		for _, n := range names {
			if shellSafe(n) {
				out = append(out, candidate{n, "job type"})
			}
		}
		return out, nil
	})
}

// deadPools are the IDs of the pools reap takes for dead.
func (l *liveSource) deadPools(ctx context.Context) []candidate {
	return l.fetch(ctx, func(ctx context.Context, conn redis.Conn, t *target, deadAfter time.Duration) ([]candidate, error) {
		snap, err := redisq.ReadSnapshot(ctx, conn, t.namespace, deadAfter)
		if err != nil {
			return nil, err
		}
		var out []candidate
		for _, p := range snap.Pools {
			if p.Status == model.StatusDead && shellSafe(p.ID) {
				out = append(out, candidate{p.ID, poolDesc(p)})
			}
		}
		return out, nil
	})
}

// poolDesc says which dead pool an ID is: its host and pid, its jobs in
// progress, its last heartbeat.
func poolDesc(p model.Pool) string {
	parts := []string{"dead"}
	if p.Heartbeat == nil {
		parts = append(parts, "no heartbeat")
	} else {
		parts = append(parts, fmt.Sprintf("%s pid %d", p.Heartbeat.Host, p.Heartbeat.PID))
	}
	if n := p.InProgressTotal(); n > 0 {
		parts = append(parts, jobsPlural(n, "job")+" in progress")
	}
	if p.HeartbeatAge != nil {
		parts = append(parts, "beat "+model.FormatAge(*p.HeartbeatAge)+" ago")
	}
	return strings.Join(parts, ", ")
}

// inProgressKeys are the lists requeue takes: those of dead pools, then
// the orphans the scan finds in the time left.
func (l *liveSource) inProgressKeys(ctx context.Context) []candidate {
	return l.fetch(ctx, func(ctx context.Context, conn redis.Conn, t *target, deadAfter time.Duration) ([]candidate, error) {
		keys := redisq.NewKeys(t.namespace)
		snap, err := redisq.ReadSnapshot(ctx, conn, t.namespace, deadAfter)
		if err != nil {
			return nil, err
		}
		var out []candidate
		add := func(key string, n int64, what string) {
			if shellSafe(key) {
				out = append(out, candidate{key, fmt.Sprintf("%s, %s", jobsPlural(n, "job"), what)})
			}
		}
		for _, p := range snap.Pools {
			if p.Status != model.StatusDead {
				continue
			}
			for _, job := range sortedNames(p.InProgress) {
				add(keys.InProgress(job, p.ID), p.InProgress[job], "dead pool")
			}
		}
		// The scan walks the whole keyspace: what it finds before the
		// budget ends is offered, the dead pools' lists in any case.
		if res, err := redisq.ScanOrphans(ctx, conn, keys, 0, nil); err == nil {
			for _, o := range res.Orphans {
				add(o.Key, o.Length, "orphan")
			}
		}
		return out, nil
	})
}

func sortedNames(m map[string]int64) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// setIDs are the IDs of the first page of a job set, in its order.
func (l *liveSource) setIDs(ctx context.Context, set model.SetName) []candidate {
	return l.fetch(ctx, func(ctx context.Context, conn redis.Conn, t *target, _ time.Duration) ([]candidate, error) {
		page, err := redisq.ReadSetPage(ctx, conn, redisq.NewKeys(t.namespace), set, redisq.PageOptions{})
		if err != nil {
			return nil, err
		}
		var out []candidate
		for _, j := range page.Jobs {
			if j.Job != nil && shellSafe(j.Job.ID) {
				out = append(out, candidate{j.Job.ID, strings.TrimSpace(j.Job.Name + " " + j.Job.LastErr)})
			}
		}
		return out, nil
	})
}

// queueIDs are the IDs of the first page of a job type's queue, the next
// to run first.
func (l *liveSource) queueIDs(ctx context.Context, job string) []candidate {
	return l.fetch(ctx, func(ctx context.Context, conn redis.Conn, t *target, _ time.Duration) ([]candidate, error) {
		page, err := redisq.ReadQueuePage(ctx, conn, redisq.NewKeys(t.namespace), job, 0, redisq.DefaultPageLimit)
		if err != nil {
			return nil, err
		}
		var out []candidate
		for _, j := range page.Jobs {
			if j.ParseErr == nil && shellSafe(j.ID) {
				out = append(out, candidate{j.ID, fmt.Sprintf("position %d", j.Position)})
			}
		}
		return out, nil
	})
}
