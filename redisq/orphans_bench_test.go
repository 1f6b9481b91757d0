package redisq

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// BenchmarkOrphanScan walks 200,000 keys (100 of them in-progress lists, 10
// orphaned) at COUNT 1000 and reports the SCAN calls, and the longest single
// step as a fraction of the whole scan: the scan is incremental, so no step
// holds Redis (or the caller) for more than a small part of it.
func BenchmarkOrphanScan(b *testing.B) {
	srv := redistest.Start(b, "--enable-debug-command", "local")
	c := srv.Dial()
	k := NewKeys("work")
	if _, err := c.Do("DEBUG", "POPULATE", 200000, "noise"); err != nil {
		b.Fatalf("DEBUG POPULATE: %v", err)
	}
	for i := 0; i < 100; i++ {
		pool := fmt.Sprintf("pool%02d", i%20)
		if i%20 < 18 {
			if _, err := c.Do("SADD", k.WorkerPools(), pool); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := c.Do("RPUSH", k.InProgress(fmt.Sprintf("job%d", i/20), pool), "x"); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	var total, longest time.Duration
	var calls, orphans int
	for i := 0; i < b.N; i++ {
		s := NewOrphanScan(k, DefaultScanCount)
		start := time.Now()
		for !s.Done() {
			t0 := time.Now()
			if _, err := s.Step(ctx, c); err != nil {
				b.Fatal(err)
			}
			longest = max(longest, time.Since(t0))
		}
		res, err := s.Finish(ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		calls, orphans = res.Calls, len(res.Orphans)
	}
	if orphans != 10 {
		b.Fatalf("found %d orphans, want 10", orphans)
	}
	b.ReportMetric(float64(calls), "scan-calls")
	b.ReportMetric(float64(longest)/float64(total/time.Duration(b.N)), "longest-step/scan")
}
