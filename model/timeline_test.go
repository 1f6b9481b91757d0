package model

import (
	"testing"
	"time"
)

// TestTimelineBucketsAligned: the buckets start at multiples of the
// bucket, the first at or before the window's start, for every window the
// flags allow, those reaching back before 1970 (the longest Go duration is
// 292 years) included; every second of the window falls in its bucket.
func TestTimelineBucketsAligned(t *testing.T) {
	now := time.Date(2026, 12, 1, 4, 0, 7, 0, time.UTC)
	longest := time.Duration(1<<63 - 1).Truncate(time.Hour)
	for _, tc := range []struct{ since, bucket time.Duration }{
		{6 * time.Hour, 5 * time.Minute},
		{60 * 365 * 24 * time.Hour, 365 * 24 * time.Hour},
		{longest, longest / 1000},
		{longest, longest},
	} {
		tl := NewTimeline(now, tc.since, tc.bucket)
		b := int64(tc.bucket / time.Second)
		first := tl.Buckets[0].Start
		if first%b != 0 || first > tl.From || first+b <= tl.From {
			t.Fatalf("since %s bucket %s: first bucket starts %d, window %d", tc.since, tc.bucket, first, tl.From)
		}
		for _, at := range []int64{tl.From, tl.From + 1, tl.To - 1} {
			bk := tl.bucketOf(at)
			if bk == nil || at < bk.Start || at >= bk.Start+b {
				t.Fatalf("since %s bucket %s: second %d not in its bucket (%v)", tc.since, tc.bucket, at, bk)
			}
		}
	}
}
