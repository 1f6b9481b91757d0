package model

import "time"

// TimelineSteps are the bucket lengths a fitted timeline is drawn in.
var TimelineSteps = []time.Duration{10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour}

// FitTimeline is the window and bucket that show tl's failures in at most
// buckets buckets: from the bucket before the first failure to the end of
// tl, in the shortest step of TimelineSteps that fits. ok is false when tl
// has no failure, or when the fitted window is tl's own.
func FitTimeline(tl *Timeline, buckets int) (since, bucket time.Duration, ok bool) {
	first := int64(-1)
	for _, b := range tl.Buckets {
		if b.Deaths+b.Retrying > 0 {
			first = b.Start
			break
		}
	}
	if first < 0 || buckets < 2 {
		return 0, 0, false
	}
	span := time.Duration(tl.To-first) * time.Second
	bucket = TimelineSteps[len(TimelineSteps)-1]
	for _, s := range TimelineSteps {
		// One bucket more before the first failure, one for the bucket
		// the end falls in.
		if int(span/s)+2 <= buckets {
			bucket = s
			break
		}
	}
	n := int64(span/bucket) + 1
	since = time.Duration(n) * bucket
	if since >= time.Duration(tl.To-tl.From)*time.Second && bucket == tl.Bucket {
		return 0, 0, false
	}
	return since, bucket, true
}

// LastFailure is the index of the last bucket of tl with a failure, -1
// when none has one.
func (tl *Timeline) LastFailure() int {
	for i := len(tl.Buckets) - 1; i >= 0; i-- {
		if tl.Buckets[i].Deaths+tl.Buckets[i].Retrying > 0 {
			return i
		}
	}
	return -1
}
