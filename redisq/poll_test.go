package redisq_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// randomState writes a random namespace: pools alive, late, dead and
// without a heartbeat, job types with queues, jobs in progress recorded as
// gocraft/work's fetch records them (list, lock, lock_info), lock_info
// fields left at 0 by finished jobs, now and then a job type that only
// a heartbeat names, and workers named by the heartbeats, idle or busy
// (some for longer than DefaultLongAfter, some with an observation that
// gives a warning). With drift set it then breaks one job type's counters
// in one of the ways a crash or a double reap leaves them, and returns its
// name.
func randomState(t *testing.T, c redis.Conn, rng *rand.Rand, drift bool) (driftJob string, detectable bool) {
	t.Helper()
	redistest.Do(t, c, "FLUSHALL")
	now := redistest.Time(t, c).Unix()
	jobs := make([]string, rng.Intn(5))
	for i := range jobs {
		jobs[i] = fmt.Sprintf("job:%d", i) // a job name with a colon
		redistest.Do(t, c, "SADD", "work:known_jobs", jobs[i])
		for q := rng.Intn(3); q > 0; q-- {
			redistest.Do(t, c, "LPUSH", "work:jobs:"+jobs[i], fmt.Sprintf(`{"name":%q,"id":"q%d","t":%d,"args":{}}`, jobs[i], q, now-int64(rng.Intn(100))))
		}
		if rng.Intn(3) == 0 {
			redistest.Do(t, c, "SET", "work:jobs:"+jobs[i]+":max_concurrency", rng.Intn(4))
		}
		if rng.Intn(5) == 0 {
			redistest.Do(t, c, "SET", "work:jobs:"+jobs[i]+":paused", "1")
		}
	}
	names := slices.Clone(jobs)
	if rng.Intn(6) == 0 {
		names = append(names, "unregistered")
	}
	pools := make([]string, rng.Intn(7))
	for i := range pools {
		pools[i] = fmt.Sprintf("%024x", rng.Int63())
		redistest.Do(t, c, "SADD", "work:worker_pools", pools[i])
		var age int64
		switch rng.Intn(4) {
		case 0: // no heartbeat
			age = -1
		case 1: // dead
			age = 60
		case 2: // late
			age = 8
		default:
			age = int64(rng.Intn(3))
		}
		if age >= 0 {
			workers := randomWorkers(t, c, rng, i, names, now)
			redistest.Do(t, c, "HSET", "work:worker_pools:"+pools[i], "heartbeat_at", now-age, "started_at", now-100,
				"job_names", joinSorted(names), "concurrency", 4, "host", "h", "pid", 1, "worker_ids", joinSorted(workers))
		}
		for _, job := range names {
			switch rng.Intn(4) {
			case 0: // jobs in progress
				n := 1 + rng.Intn(3)
				for k := 0; k < n; k++ {
					redistest.Do(t, c, "LPUSH", "work:jobs:"+job+":"+pools[i]+":inprogress", fmt.Sprintf(`{"name":%q,"id":"p%d","t":%d}`, job, k, now))
				}
				redistest.Do(t, c, "INCRBY", "work:jobs:"+job+":lock", n)
				redistest.Do(t, c, "HINCRBY", "work:jobs:"+job+":lock_info", pools[i], n)
			case 1: // all its jobs finished: the field stays at 0
				redistest.Do(t, c, "HSET", "work:jobs:"+job+":lock_info", pools[i], 0)
			}
		}
	}
	if !drift || len(jobs) == 0 {
		return "", false
	}
	job := jobs[rng.Intn(len(jobs))]
	switch k := rng.Intn(3); {
	case k == 0 && len(pools) > 0: // a list lock_info does not name
		p := pools[rng.Intn(len(pools))]
		redistest.Do(t, c, "HDEL", "work:jobs:"+job+":lock_info", p)
		redistest.Do(t, c, "LPUSH", "work:jobs:"+job+":"+p+":inprogress", `{"name":"x","id":"d","t":1}`)
		return job, true
	case k == 1: // lock too high (a double fetch count)
		redistest.Do(t, c, "INCRBY", "work:jobs:"+job+":lock", 1+rng.Intn(3))
		return job, true
	default: // lock_info names a pool that holds nothing, lock follows it
		redistest.Do(t, c, "HINCRBY", "work:jobs:"+job+":lock_info", "ffffffffffffffffffffffff", 1)
		redistest.Do(t, c, "INCR", "work:jobs:"+job+":lock")
		return job, true
	}
}

// randomWorkers names up to three workers of pool number pool and writes
// an observation, as gocraft/work's observer does, for some of them.
func randomWorkers(t *testing.T, c redis.Conn, rng *rand.Rand, pool int, jobs []string, now int64) []string {
	t.Helper()
	ids := make([]string, rng.Intn(4))
	for k := range ids {
		ids[k] = fmt.Sprintf("w%d%c", pool, 'a'+k)
		if len(jobs) == 0 || rng.Intn(2) == 0 {
			continue // idle: no observation
		}
		started := fmt.Sprint(now - int64(rng.Intn(1200))) // up to twice DefaultLongAfter
		if rng.Intn(8) == 0 {
			started = "soon" // a warning
		}
		redistest.Do(t, c, "HSET", "work:worker:"+ids[k], "job_name", jobs[rng.Intn(len(jobs))],
			"job_id", fmt.Sprintf("j%d", k), "started_at", started, "args", `{"n":1}`)
		if rng.Intn(2) == 0 {
			redistest.Do(t, c, "HSET", "work:worker:"+ids[k], "checkin", "half way", "checkin_at", now)
		}
	}
	return ids
}

// withWorkersOf is a copy of snap with the workers of from, analyzed
// again: a poll or sweep that did not read the workers, completed with
// the snapshot's to compare the rest.
func withWorkersOf(snap, from *model.Snapshot) *model.Snapshot {
	out := *snap
	out.Workers = from.Workers
	model.Analyze(&out, out.DeadAfter)
	return &out
}

func joinSorted(ss []string) string {
	s := slices.Sorted(slices.Values(ss))
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

// sameClock sets both snapshots to the same Redis time and classifies them
// again, so that a second passing between the reads does not show as a
// difference.
func sameClock(a, b *model.Snapshot) {
	b.RedisTime = a.RedisTime
	// Whether the read looked for leaked entries says how it read, not
	// what it found: a poll never does.
	b.LeakAware = a.LeakAware
	model.Analyze(a, a.DeadAfter)
	model.Analyze(b, b.DeadAfter)
}

func noPause(time.Duration) time.Duration { return 0 }

func driftSet(s *model.Snapshot) []string {
	var out []string
	for _, jt := range s.JobTypes {
		if jt.Drift {
			out = append(out, jt.Name)
		}
	}
	return out
}

// TestPollEqualsSnapshot: over many random consistent states, the poll's
// model is the full snapshot's (counts, lock_info, statuses, workers,
// findings) when it is asked for the workers; without them, and in the
// sweep, the workers are marked not read (nil) and the rest is the
// snapshot's.
func TestPollEqualsSnapshot(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(17))
	busy := 0
	for i := 0; i < 300; i++ {
		randomState(t, c, rng, false)
		full, err := redisq.ReadSnapshot(ctx, c, "work", model.DefaultDeadAfter)
		if err != nil {
			t.Fatal(err)
		}
		poll, err := redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{Workers: true})
		if err != nil {
			t.Fatal(err)
		}
		bare, err := redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{})
		if err != nil {
			t.Fatal(err)
		}
		sweep, err := redisq.ReadSweep(ctx, c, "work", model.DefaultDeadAfter, noPause)
		if err != nil {
			t.Fatal(err)
		}
		if d := driftSet(full); len(d) > 0 {
			t.Fatalf("state %d: a consistent state shows drift in %v", i, d)
		}
		if full.Workers == nil || poll.Workers == nil {
			t.Fatalf("state %d: workers read as not read: snapshot %v, poll %v", i, full.Workers == nil, poll.Workers == nil)
		}
		if bare.Workers != nil || sweep.Workers != nil {
			t.Fatalf("state %d: workers not asked for, yet read: poll %d, sweep %d", i, len(bare.Workers), len(sweep.Workers))
		}
		busy += len(model.BusyWorkers(full.Workers))
		sameClock(full, poll)
		bare, sweep = withWorkersOf(bare, full), withWorkersOf(sweep, full)
		sameClock(full, bare)
		sameClock(full, sweep)
		if !reflect.DeepEqual(full, poll) {
			t.Fatalf("state %d: poll differs from the snapshot:\n poll %+v\n full %+v", i, poll, full)
		}
		if !reflect.DeepEqual(full, bare) {
			t.Fatalf("state %d: poll without workers differs from the snapshot:\n poll %+v\n full %+v", i, bare, full)
		}
		if !reflect.DeepEqual(full, sweep) {
			t.Fatalf("state %d: sweep differs from the snapshot:\n sweep %+v\n full %+v", i, sweep, full)
		}

		// The next poll knows the heartbeats and reads heartbeat_at
		// alone; a hash deleted or rewritten since is read whole.
		known := map[string]model.Heartbeat{}
		for _, p := range poll.Pools {
			if p.Heartbeat != nil && !p.Heartbeat.HeartbeatAtMissing {
				known[p.ID] = *p.Heartbeat
			}
		}
		if len(poll.Pools) > 0 {
			id := poll.Pools[rng.Intn(len(poll.Pools))].ID
			switch rng.Intn(6) {
			case 0:
				redistest.Do(t, c, "DEL", "work:worker_pools:"+id)
			case 1:
				redistest.Do(t, c, "HSET", "work:worker_pools:"+id, "heartbeat_at", "soon")
			case 2:
				redistest.Do(t, c, "HDEL", "work:worker_pools:"+id, "heartbeat_at")
			}
		}
		full, err = redisq.ReadSnapshot(ctx, c, "work", model.DefaultDeadAfter)
		if err != nil {
			t.Fatal(err)
		}
		// The workers named by a known heartbeat are read as well.
		again, err := redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{Known: known, Workers: true})
		if err != nil {
			t.Fatal(err)
		}
		sameClock(full, again)
		if !reflect.DeepEqual(full, again) {
			t.Fatalf("state %d: poll with known heartbeats differs from the snapshot:\n poll %+v\n full %+v", i, again, full)
		}
	}
	if busy < 100 {
		t.Fatalf("only %d busy workers over 300 states", busy)
	}
}

// workerReads runs read on a connection that records the keys of the
// commands sent, and returns the observation reads among them
// ("HGETALL work:worker:w1a"), sorted.
func workerReads(t *testing.T, c redis.Conn, read func(redis.Conn) (*model.Snapshot, error)) []string {
	t.Helper()
	var got []string
	cc := &countingConn{Conn: c, tamper: func(_ int, cmd string, args []any, v any, err error) (any, error) {
		if len(args) > 0 {
			if key := fmt.Sprintf("%s", args[0]); strings.Contains(key, ":worker:") {
				got = append(got, cmd+" "+key)
			}
		}
		return v, err
	}}
	if _, err := read(cc); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// TestPollReadsWorkersOnlyWhenAsked: a poll not asked for the workers
// sends nothing about them; asked, it sends exactly the observation reads
// of the snapshot, one HGETALL per worker a heartbeat names (dead pools'
// included), known heartbeats or not.
func TestPollReadsWorkersOnlyWhenAsked(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(5))
	checked := 0
	for i := 0; i < 40; i++ {
		randomState(t, c, rng, false)
		full := workerReads(t, c, func(cc redis.Conn) (*model.Snapshot, error) {
			return redisq.ReadSnapshot(ctx, cc, "work", model.DefaultDeadAfter)
		})
		snap, err := redisq.ReadSnapshot(ctx, c, "work", model.DefaultDeadAfter)
		if err != nil {
			t.Fatal(err)
		}
		if len(full) != len(snap.Workers) {
			t.Fatalf("state %d: the snapshot sent %d observation reads for %d workers: %v", i, len(full), len(snap.Workers), full)
		}
		for _, r := range full {
			if !strings.HasPrefix(r, "HGETALL ") {
				t.Fatalf("state %d: %s", i, r)
			}
		}
		known := map[string]model.Heartbeat{}
		for _, p := range snap.Pools {
			if p.Heartbeat != nil && rng.Intn(2) == 0 {
				known[p.ID] = *p.Heartbeat
			}
		}
		for _, req := range []redisq.PollRequest{{}, {Known: known}, {Workers: true}, {Workers: true, Known: known}} {
			got := workerReads(t, c, func(cc redis.Conn) (*model.Snapshot, error) {
				return redisq.ReadPoll(ctx, cc, "work", model.DefaultDeadAfter, req)
			})
			want := full
			if !req.Workers {
				want = nil
			}
			if !slices.Equal(got, want) {
				t.Fatalf("state %d: poll (workers %v, %d known) read %v, want %v", i, req.Workers, len(req.Known), got, want)
			}
		}
		sweep := workerReads(t, c, func(cc redis.Conn) (*model.Snapshot, error) {
			return redisq.ReadSweep(ctx, cc, "work", model.DefaultDeadAfter, noPause)
		})
		if len(sweep) > 0 {
			t.Fatalf("state %d: the sweep read workers: %v", i, sweep)
		}
		checked += len(full)
	}
	if checked < 30 {
		t.Fatalf("only %d workers named over 40 states", checked)
	}
}

// TestPollerReadsHeartbeatAtAlone: a Poller's second poll reads the
// heartbeats it knows with HGET heartbeat_at, and still sees a pool's
// heartbeat_at move.
func TestPollerReadsHeartbeatAtAlone(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(t, c).Unix()
	for i := 0; i < 40; i++ {
		id := fmt.Sprintf("%024d", i)
		redistest.Do(t, c, "SADD", "work:worker_pools", id)
		redistest.Do(t, c, "HSET", "work:worker_pools:"+id, "heartbeat_at", now, "job_names", "a", "host", "h")
	}
	pool := srv.Pool()
	defer pool.Close()
	p := redisq.NewPoller(redisq.NewClient(pool, "work", 0))
	ctx := context.Background()
	if _, err := p.Poll(ctx, redisq.PollRequest{}); err != nil {
		t.Fatal(err)
	}
	redistest.Do(t, c, "HSET", "work:worker_pools:"+fmt.Sprintf("%024d", 7), "heartbeat_at", now-60)
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	snap, err := p.Poll(ctx, redisq.PollRequest{})
	if err != nil {
		t.Fatal(err)
	}
	stats, _ := redis.String(c.Do("INFO", "commandstats"))
	if !strings.Contains(stats, "cmdstat_hget:calls=") {
		t.Fatalf("no HGET in the second poll:\n%s", stats)
	}
	if strings.Contains(stats, "cmdstat_hgetall:calls=40,") {
		t.Fatalf("the second poll read every heartbeat whole:\n%s", stats)
	}
	if dead := snap.DeadPools(); len(dead) != 1 || dead[0] != fmt.Sprintf("%024d", 7) {
		t.Fatalf("dead pools %v", dead)
	}
	pl, _ := snap.Pool(fmt.Sprintf("%024d", 3))
	if pl.Heartbeat == nil || pl.Heartbeat.Host != "h" || len(pl.Heartbeat.JobNames) != 1 {
		t.Fatalf("a known heartbeat lost its fields: %+v", pl.Heartbeat)
	}
}

// TestPollDriftOnlyWhereSweepConfirms: on states with drift, the sweep
// reports what the full snapshot reports, and every drift the poll reports
// is one the sweep reports. A poll asked to read every list of the drifted
// job types (as the screen does after a sweep) reports the same drift and
// in-progress counts as the snapshot.
func TestPollDriftOnlyWhereSweepConfirms(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(71))
	seen := 0
	for i := 0; i < 300; i++ {
		job, detectable := randomState(t, c, rng, true)
		full, err := redisq.ReadSnapshot(ctx, c, "work", model.DefaultDeadAfter)
		if err != nil {
			t.Fatal(err)
		}
		sweep, err := redisq.ReadSweep(ctx, c, "work", model.DefaultDeadAfter, noPause)
		if err != nil {
			t.Fatal(err)
		}
		poll, err := redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(driftSet(sweep), driftSet(full)) {
			t.Fatalf("state %d: sweep drift %v, snapshot drift %v", i, driftSet(sweep), driftSet(full))
		}
		if detectable && !slices.Contains(driftSet(sweep), job) {
			t.Fatalf("state %d: the sweep misses the drift of %s", i, job)
		}
		for _, d := range driftSet(poll) {
			if !slices.Contains(driftSet(sweep), d) {
				t.Fatalf("state %d: the poll reports drift in %s, the sweep does not (%v)", i, d, driftSet(sweep))
			}
		}
		if detectable {
			seen++
		}
		for _, p := range full.Pools {
			// What a reap of a dead or late pool would move is read in full.
			pp, _ := poll.Pool(p.ID)
			if p.Status != model.StatusAlive && !reflect.DeepEqual(p.InProgress, pp.InProgress) {
				t.Fatalf("state %d: %s pool %s: poll in progress %v, snapshot %v", i, p.Status, p.ID, pp.InProgress, p.InProgress)
			}
		}
		after, err := redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{JobTypes: driftSet(sweep), Workers: true})
		if err != nil {
			t.Fatal(err)
		}
		sameClock(full, after)
		if !reflect.DeepEqual(full, after) {
			t.Fatalf("state %d: poll reading the drifted job types differs from the snapshot:\n poll %+v\n full %+v", i, after, full)
		}
	}
	if seen < 100 {
		t.Fatalf("only %d of 300 states had drift", seen)
	}
}

// TestPollReadsOpenPool: the pool of the detail view has every list read,
// even one lock_info does not name.
func TestPollReadsOpenPool(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "a")
	redistest.Do(t, c, "SADD", "work:worker_pools", "p1")
	redistest.Do(t, c, "HSET", "work:worker_pools:p1", "heartbeat_at", now, "job_names", "a")
	redistest.Do(t, c, "LPUSH", "work:jobs:a:p1:inprogress", "{}")
	ctx := context.Background()
	for _, tc := range []struct {
		open string
		want int64
	}{{"", 0}, {"p1", 1}} {
		snap, err := redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{Open: tc.open})
		if err != nil {
			t.Fatal(err)
		}
		if got := snap.Pools[0].InProgress["a"]; got != tc.want {
			t.Errorf("open %q: in progress %d, want %d", tc.open, got, tc.want)
		}
	}
}

// TestPollNoFalseDriftBesideDrift: when one job type's drift makes the
// poll re-read, another job type whose lists it read in part (lock_info
// names a pool whose list is empty, while an unnamed pool holds the job:
// totals that agree, so no drift) is not reported drifted.
func TestPollNoFalseDriftBesideDrift(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "a", "b")
	for _, id := range []string{"pa", "pb"} {
		redistest.Do(t, c, "SADD", "work:worker_pools", id)
		redistest.Do(t, c, "HSET", "work:worker_pools:"+id, "heartbeat_at", now, "job_names", "a,b")
	}
	redistest.Do(t, c, "SET", "work:jobs:a:lock", 3) // a: lock too high
	redistest.Do(t, c, "SET", "work:jobs:b:lock", 1) // b: named pa, held by pb
	redistest.Do(t, c, "HSET", "work:jobs:b:lock_info", "pa", 1)
	redistest.Do(t, c, "LPUSH", "work:jobs:b:pb:inprogress", "{}")
	ctx := context.Background()
	full, err := redisq.ReadSnapshot(ctx, c, "work", model.DefaultDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	poll, err := redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := driftSet(poll), driftSet(full); !slices.Equal(got, want) || !slices.Equal(want, []string{"a"}) {
		t.Fatalf("poll drift %v, snapshot drift %v, want [a]", got, want)
	}
}

// TestPollNoDrift: with NoDrift a poll of a drifted namespace reports no
// drift, neither on the job type nor as a finding: the sweep owns it.
func TestPollNoDrift(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "a")
	redistest.Do(t, c, "SADD", "work:worker_pools", "pa")
	redistest.Do(t, c, "HSET", "work:worker_pools:pa", "heartbeat_at", now, "job_names", "a")
	redistest.Do(t, c, "SET", "work:jobs:a:lock", 3) // lock too high: drift
	ctx := context.Background()
	poll, err := redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := driftSet(poll); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("poll drift %v, want [a]", got)
	}
	poll, err = redisq.ReadPoll(ctx, c, "work", model.DefaultDeadAfter, redisq.PollRequest{NoDrift: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := driftSet(poll); len(got) != 0 {
		t.Fatalf("poll with NoDrift reports drift %v", got)
	}
	for _, f := range poll.Findings {
		if f.Kind == model.FindingDrift {
			t.Fatalf("poll with NoDrift has a drift finding %+v", f)
		}
	}
}
