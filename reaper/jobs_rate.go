package reaper

// This file owns the pace of a bulk action given a rate: at most N jobs a
// second go to Redis, so that a requeue after an outage does not stampede
// the service that just came back.

import (
	"context"
	"time"
)

// SetRate makes the executor send at most n jobs a second (no bound when n
// is below 1). A script call then takes at most a tenth of n jobs, so the
// jobs of any second are at most n and one call's.
func (e *JobsExecutor) SetRate(n int) {
	e.rate = max(n, 0)
	if n > 0 {
		e.batch = min(e.batch, max(1, n/10))
	}
}

// pacer spaces script calls: the call that brings the jobs sent to k is
// sent no sooner than (k - its own jobs) / rate seconds after the first.
type pacer struct {
	rate  int
	start time.Time
	sent  int64
}

// wait waits until n more jobs may be sent, or ctx is done.
func (p *pacer) wait(ctx context.Context, n int) error {
	if p.rate <= 0 {
		return nil
	}
	now := time.Now()
	if p.start.IsZero() {
		p.start = now
	}
	at := p.start.Add(time.Duration(float64(p.sent) / float64(p.rate) * float64(time.Second)))
	if d := at.Sub(now); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	p.sent += int64(n)
	return nil
}
