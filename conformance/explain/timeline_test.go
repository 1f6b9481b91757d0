package explain_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

type timelineOut struct {
	From          int64 `json:"from"`
	To            int64 `json:"to"`
	BucketSeconds int64 `json:"bucket_seconds"`
	Buckets       []struct {
		Start    int64          `json:"start"`
		Deaths   int            `json:"deaths"`
		Retrying int            `json:"retrying"`
		ByJob    map[string]int `json:"by_job"`
		ByError  map[string]int `json:"by_error"`
	} `json:"buckets"`
	Starts []struct {
		Host      string `json:"host"`
		StartedAt int64  `json:"started_at"`
		Pools     int    `json:"pools"`
	} `json:"starts"`
	LastBeats []struct {
		PoolID      string `json:"pool_id"`
		Host        string `json:"host"`
		HeartbeatAt int64  `json:"heartbeat_at"`
	} `json:"last_beats"`
}

// expectBucket is what a bucket must hold, computed from the dumps.
type expectBucket struct {
	deaths, retrying int
	byJob, byError   map[string]int
}

// A real gocraft/work pool fails jobs in three waves a few seconds apart
// (two job types, three errors, MaxFails 1: each failure is a death) and
// one job type waits in retry; a second pool starts later and a third is
// killed. `timeline --json` gives per bucket exactly the counts computed
// from ZRANGE WITHSCORES of the dead set and the retry set's failed_at,
// its start markers are the heartbeats' started_at by host, and its last
// beat the killed pool's heartbeat_at.
func TestTimelineCountsTheDeadSetsWaves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, waits for a pool to die")
	}
	bin := redistest.Binary(t)
	srv := redistest.Start(t)
	const ns = "conf-timeline"
	keys := redisq.NewKeys(ns)
	c := srv.Dial()
	defer c.Close()

	fail := func(msg string) func(*work.Job) error {
		return func(*work.Job) error { return errors.New(msg) }
	}
	startPool(t, srv.Addr(), ns, 4, func(wp *work.WorkerPool) {
		wp.JobWithOptions("charge", work.JobOptions{MaxFails: 1}, func(j *work.Job) error {
			if j.ArgInt64("i")%2 == 0 {
				return errors.New("card declined")
			}
			return errors.New("gateway timeout")
		})
		wp.JobWithOptions("refund", work.JobOptions{MaxFails: 1}, fail("ledger locked"))
		wp.JobWithOptions("mail", work.JobOptions{MaxFails: 5, Backoff: func(*work.Job) int64 { return 3600 }}, fail("smtp refused"))
	})
	// A deploy: a second pool starts a few seconds after the first.
	time.Sleep(1100 * time.Millisecond)
	startPool(t, srv.Addr(), ns, 1, func(wp *work.WorkerPool) { wp.Job("mail", fail("smtp refused")) })
	// A pool killed at once: started after the live ones, so their first
	// upstream reaper run does not reap it; dead 10 s after its last beat.
	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Jobs: []gcstate.JobType{{Name: "idle"}}})

	zcard := func(key string) int64 {
		n, err := redis.Int64(c.Do("ZCARD", key))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var deaths int64
	wave := func(charge, refund int) {
		gcstate.Enqueue(t, srv.Addr(), ns, "charge", charge)
		gcstate.Enqueue(t, srv.Addr(), ns, "refund", refund)
		deaths += int64(charge + refund)
		gcstate.WaitFor(t, 20*time.Second, fmt.Sprintf("%d dead jobs", deaths), func() (bool, error) { return zcard(keys.Dead()) == deaths, nil })
		time.Sleep(2500 * time.Millisecond)
	}
	wave(4, 2)
	gcstate.Enqueue(t, srv.Addr(), ns, "mail", 2)
	wave(9, 0)
	wave(1, 5)
	gcstate.WaitFor(t, 20*time.Second, "2 mail jobs in retry", func() (bool, error) { return zcard(keys.Retry()) == 2, nil })
	gcstate.WaitFor(t, 20*time.Second, "the killed pool dead", func() (bool, error) {
		return redistest.Time(t, c).After(killed.DeadAt(10 * time.Second)), nil
	})

	dump := func() (dead, retry []any) {
		var err error
		if dead, err = redis.Values(c.Do("ZRANGE", keys.Dead(), 0, -1, "WITHSCORES")); err != nil {
			t.Fatal(err)
		}
		if retry, err = redis.Values(c.Do("ZRANGE", keys.Retry(), 0, -1, "WITHSCORES")); err != nil {
			t.Fatal(err)
		}
		return dead, retry
	}
	dead, retry := dump()
	r := redistest.Run(t, bin, nil, "--redis", srv.Addr(), "--namespace", ns, "timeline", "--json", "--since", "10m", "--bucket", "2s")
	if r.Code != 0 {
		t.Fatalf("timeline: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if d2, r2 := dump(); !reflect.DeepEqual(d2, dead) || !reflect.DeepEqual(r2, retry) {
		t.Fatal("the sets changed while the timeline was read")
	}
	var tl timelineOut
	if err := json.Unmarshal([]byte(r.Stdout), &tl); err != nil {
		t.Fatalf("timeline --json: %v\n%s", err, r.Stdout)
	}
	if tl.BucketSeconds != 2 || len(tl.Buckets) == 0 {
		t.Fatalf("bucket_seconds %d, %d buckets", tl.BucketSeconds, len(tl.Buckets))
	}

	// The expected counts, from the dumps alone.
	want := map[int64]*expectBucket{}
	at := func(sec int64) *expectBucket {
		s := sec - sec%tl.BucketSeconds
		if want[s] == nil {
			want[s] = &expectBucket{byJob: map[string]int{}, byError: map[string]int{}}
		}
		return want[s]
	}
	type member struct {
		Name     string `json:"name"`
		Err      string `json:"err"`
		FailedAt int64  `json:"failed_at"`
	}
	for i := 0; i < len(dead); i += 2 {
		var m member
		if err := json.Unmarshal(dead[i].([]byte), &m); err != nil {
			t.Fatal(err)
		}
		score, err := strconv.ParseInt(string(dead[i+1].([]byte)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		b := at(score)
		b.deaths++
		b.byJob[m.Name]++
		b.byError[m.Err]++
	}
	for i := 0; i < len(retry); i += 2 {
		var m member
		if err := json.Unmarshal(retry[i].([]byte), &m); err != nil {
			t.Fatal(err)
		}
		b := at(m.FailedAt)
		b.retrying++
		b.byJob[m.Name]++
		b.byError[m.Err]++
	}
	if len(want) < 3 {
		t.Fatalf("the waves fell into %d buckets, want at least 3", len(want))
	}
	seen := 0
	for _, b := range tl.Buckets {
		w := want[b.Start]
		if w == nil {
			if b.Deaths != 0 || b.Retrying != 0 || len(b.ByJob) != 0 || len(b.ByError) != 0 {
				t.Errorf("bucket %d: %+v, want nothing", b.Start, b)
			}
			continue
		}
		seen++
		if b.Deaths != w.deaths || b.Retrying != w.retrying || !reflect.DeepEqual(b.ByJob, w.byJob) || !reflect.DeepEqual(b.ByError, w.byError) {
			t.Errorf("bucket %d: deaths %d retrying %d by job %v by error %v; from the dump %d %d %v %v",
				b.Start, b.Deaths, b.Retrying, b.ByJob, b.ByError, w.deaths, w.retrying, w.byJob, w.byError)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d buckets of the dump are in the timeline", seen, len(want))
	}

	// Start markers: the heartbeats' started_at by host and second.
	ids, err := redis.Strings(c.Do("SMEMBERS", keys.WorkerPools()))
	if err != nil {
		t.Fatal(err)
	}
	type start struct {
		host string
		at   int64
	}
	wantStarts := map[start]int{}
	for _, id := range ids {
		hb, err := redis.StringMap(c.Do("HGETALL", keys.Heartbeat(id)))
		if err != nil {
			t.Fatal(err)
		}
		s, err := strconv.ParseInt(hb["started_at"], 10, 64)
		if err != nil {
			t.Fatalf("pool %s started_at %q", id, hb["started_at"])
		}
		wantStarts[start{hb["host"], s}]++
	}
	gotStarts := map[start]int{}
	for _, s := range tl.Starts {
		gotStarts[start{s.Host, s.StartedAt}] += s.Pools
	}
	if len(ids) != 3 || !reflect.DeepEqual(gotStarts, wantStarts) {
		t.Errorf("starts %v, from the %d heartbeats %v", gotStarts, len(ids), wantStarts)
	}
	if len(tl.LastBeats) != 1 || tl.LastBeats[0].PoolID != killed.ID || tl.LastBeats[0].HeartbeatAt != killed.HeartbeatAt {
		t.Errorf("last beats %+v, want the killed pool %s at %d", tl.LastBeats, killed.ID, killed.HeartbeatAt)
	}
}
