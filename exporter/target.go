package exporter

import (
	"context"
	"sync"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// target is one target's reads: the last good snapshot, how the last read
// went, the read in flight, and the same for the orphan scan. Its mutex
// guards every field below it.
type target struct {
	Target

	mu sync.Mutex
	// snap is the last snapshot read without error (nil before the first).
	snap *model.Snapshot
	// readStarted is when the last read started; reading is closed when the
	// read in flight ends (nil when none is).
	readStarted time.Time
	reading     chan struct{}
	// lastOK says whether the last read that ended succeeded.
	lastOK       bool
	readDuration time.Duration
	readErrors   uint64

	scanStarted time.Time
	scanning    bool
	// orphans is the result of the last scan that succeeded; scanned says
	// one did.
	orphans []model.InProgressList
	scanned bool
}

// view is what a scrape exports of a target: a copy taken under the lock.
type view struct {
	up           bool
	snap         *model.Snapshot
	readDuration time.Duration
	readErrors   uint64
	orphans      []model.InProgressList
	scanned      bool
}

// refresh starts a read when none is in flight and the last one started at
// least MinInterval ago (and the exporter is not closed), then waits for the read in flight (if any) until it
// ends or the wait is over, and returns the target's values. The target is
// up when no read is in flight past the wait and the last read succeeded.
func (e *Exporter) refresh(t *target, wait <-chan struct{}) view {
	now := e.opts.Now()
	t.mu.Lock()
	if t.reading == nil && (t.readStarted.IsZero() || now.Sub(t.readStarted) >= e.opts.MinInterval) {
		done := make(chan struct{})
		if e.start(func() { e.read(t, done) }) {
			t.readStarted = now
			t.reading = done
		}
	}
	if t.Orphans != nil && !t.scanning && (t.scanStarted.IsZero() || now.Sub(t.scanStarted) >= e.opts.ScanInterval) {
		if e.start(func() { e.scan(t) }) {
			t.scanStarted = now
			t.scanning = true
		}
	}
	reading := t.reading
	t.mu.Unlock()

	pending := false
	if reading != nil {
		select {
		case <-reading:
		case <-wait:
			pending = true
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return view{
		up:           t.lastOK && !pending,
		snap:         t.snap,
		readDuration: t.readDuration,
		readErrors:   t.readErrors,
		orphans:      t.orphans,
		scanned:      t.scanned,
	}
}

// start runs f in a goroutine that Close waits for, unless the exporter is
// closed.
func (e *Exporter) start(f func()) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		f()
	}()
	return true
}

// read runs one read and records it; done is closed when it is recorded.
func (e *Exporter) read(t *target, done chan struct{}) {
	ctx, cancel := context.WithTimeout(e.ctx, e.opts.ReadTimeout)
	start := time.Now()
	snap, err := t.Reader.Read(ctx)
	took := time.Since(start)
	cancel()
	t.mu.Lock()
	t.readDuration = took
	if err != nil || snap == nil {
		t.lastOK = false
		t.readErrors++
	} else {
		t.lastOK = true
		t.snap = snap
	}
	t.reading = nil
	t.mu.Unlock()
	close(done)
}

// scan runs one orphan scan and records it. No scrape waits for a scan.
func (e *Exporter) scan(t *target) {
	ctx, cancel := context.WithTimeout(e.ctx, e.opts.ScanTimeout)
	orphans, err := t.Orphans.ScanOrphans(ctx)
	cancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scanning = false
	if err == nil {
		t.orphans = orphans
		t.scanned = true
	}
}
