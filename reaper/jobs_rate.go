package reaper

// This file owns the pace of a bulk action given a rate: at most N jobs a
// second go to Redis, so that a requeue after an outage does not stampede
// the service that just came back.

import (
	"context"
	"time"
)

// SetRate makes the executor send at most n jobs a second (no bound when n
// is below 1). A script call then takes at most a tenth of n jobs, so that
// the calls in flight never fill a second's share alone.
func (e *JobsExecutor) SetRate(n int) {
	e.rate = max(n, 0)
	if n > 0 {
		e.batch = min(e.batch, max(1, n/10))
	}
}

// paced is a copy of e at rate n (SetRate), for a plan that carries its
// own rate: e itself, shared by the screen's runs, keeps its batch.
func (e *JobsExecutor) paced(n int) *JobsExecutor {
	c := *e
	c.SetRate(n)
	return &c
}

// pacer spaces script calls so that the jobs Redis runs within any second
// are at most rate, whatever the delays of the network and of Redis:
//
//   - the call that brings the jobs sent to k is sent no sooner than
//     (k - its own jobs) / rate seconds after the first, which spreads the
//     calls evenly over each second;
//   - and a call is sent only while its jobs, those of the calls still in
//     flight and those of the calls whose reply was read within the last
//     second add up to at most rate. A call runs in Redis after it is sent
//     and before its reply is read, so any two calls Redis ran less than a
//     second apart were both counted when the later one was sent.
type pacer struct {
	rate  int
	start time.Time
	sent  int64
	// inFlight are the jobs of the calls sent whose reply is not read;
	// replied the calls whose reply was read in the last second.
	inFlight int64
	replied  []pacedCall
}

// pacedCall is a call whose reply was read: when, and its jobs.
type pacedCall struct {
	at   time.Time
	jobs int64
}

// wait waits until n more jobs may be sent, or ctx is done, and counts
// them in flight.
func (p *pacer) wait(ctx context.Context, n int) error {
	if p.rate <= 0 {
		return nil
	}
	now := time.Now()
	if p.start.IsZero() {
		p.start = now
	}
	at := p.start.Add(time.Duration(float64(p.sent) / float64(p.rate) * float64(time.Second)))
	for {
		if d := at.Sub(now); d > 0 {
			if err := sleepContext(ctx, d); err != nil {
				return err
			}
			now = time.Now()
		}
		// The calls replied to a second or more ago no longer count.
		i := 0
		for i < len(p.replied) && !p.replied[i].at.After(now.Add(-time.Second)) {
			i++
		}
		p.replied = p.replied[i:]
		total := p.inFlight + int64(n)
		for _, c := range p.replied {
			total += c.jobs
		}
		// The caller read the replies that would fill the rate with the
		// calls in flight alone (full): when nothing read counts, go.
		if total <= int64(p.rate) || len(p.replied) == 0 {
			break
		}
		at = p.replied[0].at.Add(time.Second + time.Millisecond)
	}
	p.sent += int64(n)
	p.inFlight += int64(n)
	return nil
}

// full reports whether the calls in flight and n more jobs pass the rate.
func (p *pacer) full(n int) bool {
	return p.rate > 0 && p.inFlight+int64(n) > int64(p.rate)
}

// done records the reply of a call of n jobs, read now.
func (p *pacer) done(n int) {
	if p.rate <= 0 {
		return
	}
	p.inFlight = max(p.inFlight-int64(n), 0)
	p.replied = append(p.replied, pacedCall{at: time.Now(), jobs: int64(n)})
}

// sleepContext waits d, or until ctx is done.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
