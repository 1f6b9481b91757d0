// Timeline: failures per time bucket rebuilt from what Redis keeps (the
// dead set's scores are the moments of death, retry jobs carry failed_at),
// beside the moments pools started and the last beats of dead pools.

package model

import (
	"sort"
	"time"
)

// Timeline is the failures of a window in buckets of equal length.
type Timeline struct {
	// From and To bound the window (unix seconds, From inclusive, To
	// exclusive); Bucket is the length of a bucket.
	From, To int64
	Bucket   time.Duration
	Buckets  []TimelineBucket
	// Starts are the moments pools of the pool set started, one per host
	// and started_at; LastBeats the last heartbeat of each dead pool.
	Starts    []StartMarker
	LastBeats []BeatMarker
	// errKeys remembers the normalised form of error texts already seen:
	// a window's deaths repeat a few texts many times.
	errKeys map[string]string
}

// timelineErrMemo bounds errKeys.
const timelineErrMemo = 10000

// TimelineBucket counts the failures of one bucket.
type TimelineBucket struct {
	Start int64 `json:"start"`
	// Deaths are dead-set members scored in the bucket; Retrying the retry
	// jobs whose failed_at lies in it.
	Deaths   int `json:"deaths"`
	Retrying int `json:"retrying"`
	// ByJob and ByError count both together, by job name and by
	// normalised error.
	ByJob   map[string]int `json:"by_job"`
	ByError map[string]int `json:"by_error"`
}

// StartMarker is one host's pools that started at the same second.
type StartMarker struct {
	Host      string `json:"host"`
	StartedAt int64  `json:"started_at"`
	Pools     int    `json:"pools"`
}

// BeatMarker is the last beat of a pool now dead.
type BeatMarker struct {
	PoolID      string `json:"pool_id"`
	Host        string `json:"host"`
	HeartbeatAt int64  `json:"heartbeat_at"`
}

// NewTimeline returns the empty buckets of the window that ends at now and
// is since long, aligned to multiples of bucket.
func NewTimeline(now time.Time, since, bucket time.Duration) *Timeline {
	b := int64(bucket / time.Second)
	to := now.Unix()
	from := to - int64(since/time.Second)
	// Rounded down, also for a window that starts before 1970 (Go's %
	// keeps the sign of a negative from).
	start := from - ((from%b)+b)%b
	tl := &Timeline{From: from, To: to + 1, Bucket: bucket, errKeys: map[string]string{}}
	for s := start; s <= to; s += b {
		tl.Buckets = append(tl.Buckets, TimelineBucket{Start: s, ByJob: map[string]int{}, ByError: map[string]int{}})
	}
	return tl
}

func (tl *Timeline) bucketOf(at int64) *TimelineBucket {
	if at < tl.From || at >= tl.To || len(tl.Buckets) == 0 {
		return nil
	}
	i := int((at - tl.Buckets[0].Start) / int64(tl.Bucket/time.Second))
	if i < 0 || i >= len(tl.Buckets) {
		return nil
	}
	return &tl.Buckets[i]
}

// AddDead counts dead-set members by their score.
func (tl *Timeline) AddDead(jobs []SetJob) {
	for i := range jobs {
		b := tl.bucketOf(ScoreSeconds(jobs[i].Score))
		if b == nil {
			continue
		}
		b.Deaths++
		tl.count(b, &jobs[i])
	}
}

// AddRetry counts retry jobs by their failed_at.
func (tl *Timeline) AddRetry(jobs []SetJob) {
	for i := range jobs {
		j := jobs[i].Job
		if j == nil || j.FailedAt == 0 {
			continue
		}
		b := tl.bucketOf(j.FailedAt)
		if b == nil {
			continue
		}
		b.Retrying++
		tl.count(b, &jobs[i])
	}
}

func (tl *Timeline) count(b *TimelineBucket, sj *SetJob) {
	name, errText := "(not a job)", ""
	if sj.Job != nil {
		name, errText = sj.Job.Name, sj.Job.LastErr
	}
	b.ByJob[name]++
	key, ok := tl.errKeys[errText]
	if !ok {
		key = NormalizeError(errText)
		if tl.errKeys != nil && len(tl.errKeys) < timelineErrMemo {
			tl.errKeys[errText] = key
		}
	}
	b.ByError[key]++
}

// AddPools sets the markers: the start of every pool with a heartbeat,
// grouped by host and started_at, and the last beat of each dead pool,
// those within the window.
func (tl *Timeline) AddPools(pools []Pool) {
	starts := map[StartMarker]int{}
	for _, p := range pools {
		hb := p.Heartbeat
		if hb == nil {
			continue
		}
		if hb.StartedAt >= tl.From && hb.StartedAt < tl.To {
			starts[StartMarker{Host: hb.Host, StartedAt: hb.StartedAt}]++
		}
		if p.Status == StatusDead && !hb.HeartbeatAtMissing && !hb.HeartbeatAtMalformed &&
			hb.HeartbeatAt >= tl.From && hb.HeartbeatAt < tl.To {
			tl.LastBeats = append(tl.LastBeats, BeatMarker{PoolID: p.ID, Host: hb.Host, HeartbeatAt: hb.HeartbeatAt})
		}
	}
	tl.Starts = tl.Starts[:0]
	for m, n := range starts {
		m.Pools = n
		tl.Starts = append(tl.Starts, m)
	}
	sort.Slice(tl.Starts, func(i, j int) bool {
		a, b := tl.Starts[i], tl.Starts[j]
		if a.StartedAt != b.StartedAt {
			return a.StartedAt < b.StartedAt
		}
		return a.Host < b.Host
	})
	sort.Slice(tl.LastBeats, func(i, j int) bool {
		a, b := tl.LastBeats[i], tl.LastBeats[j]
		if a.HeartbeatAt != b.HeartbeatAt {
			return a.HeartbeatAt < b.HeartbeatAt
		}
		return a.PoolID < b.PoolID
	})
}

// Top returns the key of m with the highest count (ties by key) and its
// count; "" and 0 for an empty map.
func Top(m map[string]int) (string, int) {
	top, n := "", 0
	for k, v := range m {
		if v > n || v == n && k < top {
			top, n = k, v
		}
	}
	return top, n
}
