package model

import (
	"testing"
	"time"
)

// A 10-minute-old incident in the default 6-hour window is fitted to a
// window of minutes in buckets of seconds, and its last failure is found.
func TestFitTimeline(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tl := NewTimeline(now, 6*time.Hour, 5*time.Minute)
	tl.AddDead([]SetJob{{Score: float64(now.Unix() - 600)}, {Score: float64(now.Unix() - 590)}})
	since, bucket, ok := FitTimeline(tl, 30)
	if !ok || since > 20*time.Minute || since < 10*time.Minute || bucket >= time.Minute {
		t.Fatalf("fitted to %s in %s buckets (%v)", since, bucket, ok)
	}
	fitted := NewTimeline(now, since, bucket)
	fitted.AddDead([]SetJob{{Score: float64(now.Unix() - 600)}, {Score: float64(now.Unix() - 590)}})
	if n := len(fitted.Buckets); n > 30 {
		t.Errorf("%d buckets, want at most 30", n)
	}
	if i := fitted.LastFailure(); i < 0 || i == len(fitted.Buckets)-1 || fitted.Buckets[0].Deaths != 0 {
		t.Errorf("last failure in bucket %d of %d; first bucket %d deaths", i, len(fitted.Buckets), fitted.Buckets[0].Deaths)
	}
	if _, _, ok := FitTimeline(NewTimeline(now, 6*time.Hour, 5*time.Minute), 30); ok {
		t.Error("a timeline without failure was fitted")
	}
}
