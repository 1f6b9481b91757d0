package reaper

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// compareWithUpstream builds st in two namespaces, lets the upstream port reap one and
// ours (batch jobs per call) the other, and fails on any difference. Queues
// of job types that several dead pools requeue into are compared as
// multisets (upstream walks its dead pools in map order).
func compareWithUpstream(t *testing.T, srv *redistest.Server, st workState, batch int, curJobTypes []string) {
	t.Helper()
	c := srv.Dial()
	redistest.Do(t, c, "FLUSHALL")
	st.Now = redistest.Time(t, c).Unix()
	st.write(t, c, "up")
	st.write(t, c, "us")
	upstreamReap(t, c, "up", curJobTypes)
	_, res, err := planAndReap(t, srv.Pool(), c, "us", batch, Targets{AllDead: true})
	if err != nil {
		t.Fatalf("reap: %v", err)
	}
	for _, pr := range res.Pools {
		if !pr.Reaped {
			t.Fatalf("pool %s not reaped: %+v", pr.PoolID, pr)
		}
	}
	shared := map[string]int{}
	for _, p := range st.Pools {
		if p.AgeSec >= 10 {
			for j, l := range p.InProgress {
				if len(l) > 0 {
					shared[j]++
				}
			}
		}
	}
	want, got := dumpNamespace(t, c, "up"), dumpNamespace(t, c, "us")
	for j, n := range shared {
		if n > 1 {
			k := "jobs:" + j
			want[k], got[k] = sortLines(want[k]), sortLines(got[k])
		}
	}
	if d := diffDumps(want, got); d != "" {
		t.Fatalf("end state differs from upstream's (batch %d):\n%s", batch, d)
	}
}

// sortLines sorts the items of a dumped list ("list:a\nb").
func sortLines(s string) string {
	typ, body, _ := strings.Cut(s, ":")
	l := strings.Split(body, "\n")
	sort.Strings(l)
	return typ + ":" + strings.Join(l, "\n")
}

func TestReapMatchesUpstream(t *testing.T) {
	srv := redistest.Start(t)
	two := []string{"email", "report:daily"} // a job name with ':' in it
	cases := []struct {
		name  string
		st    workState
		batch int
	}{
		{name: "batches across the boundary, two job types", batch: 1000, st: workState{
			KnownJobs: two,
			Pools: []statePool{{ID: "dead1", AgeSec: 60, JobNames: two, InProgress: map[string][]string{
				"email": jobPayloads("email", 2501), "report:daily": jobPayloads("report", 1000)}}},
			Locks:    map[string]int64{"email": 2501, "report:daily": 1000},
			LockInfo: map[string]map[string]int64{"email": {"dead1": 2501}, "report:daily": {"dead1": 1000}},
			Queues:   map[string][]string{"email": jobPayloads("queued", 3)},
		}},
		{name: "lock_info field absent", batch: 3, st: workState{
			KnownJobs: two,
			Pools:     []statePool{{ID: "dead1", AgeSec: 60, JobNames: two, InProgress: map[string][]string{"email": jobPayloads("email", 10)}}},
			Locks:     map[string]int64{"email": 4, "report:daily": 2},
			LockInfo:  map[string]map[string]int64{"report:daily": {"dead1": 2}},
		}},
		{name: "lock_info absent and lock negative: upstream clamps", batch: 4, st: workState{
			KnownJobs: []string{"email"},
			Pools:     []statePool{{ID: "dead1", AgeSec: 60, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("email", 5)}}},
			Locks:     map[string]int64{"email": -3},
		}},
		{name: "lock_info absent, lock negative, no jobs: upstream leaves it", batch: 4, st: workState{
			KnownJobs: []string{"email"},
			Pools:     []statePool{{ID: "dead1", AgeSec: 60, JobNames: []string{"email"}}},
			Locks:     map[string]int64{"email": -3},
		}},
		{name: "lock below lock_info: clamped at 0", batch: 2, st: workState{
			KnownJobs: []string{"email"},
			Pools:     []statePool{{ID: "dead1", AgeSec: 60, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("email", 5)}}},
			Locks:     map[string]int64{"email": 2},
			LockInfo:  map[string]map[string]int64{"email": {"dead1": 5}},
		}},
		{name: "lock_info above the jobs, lock key absent", batch: 2, st: workState{
			KnownJobs: []string{"email"},
			Pools:     []statePool{{ID: "dead1", AgeSec: 60, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("email", 3)}}},
			LockInfo:  map[string]map[string]int64{"email": {"dead1": 7}},
		}},
		{name: "negative lock_info", batch: 1, st: workState{
			KnownJobs: []string{"email"},
			Pools:     []statePool{{ID: "dead1", AgeSec: 60, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("email", 3)}}},
			Locks:     map[string]int64{"email": 1},
			LockInfo:  map[string]map[string]int64{"email": {"dead1": -2}},
		}},
		{name: "two dead pools and a live one share a job type", batch: 5, st: workState{
			KnownJobs: two,
			Pools: []statePool{
				{ID: "dead1", AgeSec: 60, JobNames: two, InProgress: map[string][]string{"email": jobPayloads("a", 7), "report:daily": jobPayloads("r", 2)}},
				{ID: "dead2", AgeSec: 11, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("b", 4)}},
				{ID: "live1", AgeSec: 1, JobNames: two, InProgress: map[string][]string{"email": jobPayloads("c", 3)}},
			},
			Locks:    map[string]int64{"email": 14, "report:daily": 2},
			LockInfo: map[string]map[string]int64{"email": {"dead1": 7, "dead2": 4, "live1": 3}, "report:daily": {"dead1": 2}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { compareWithUpstream(t, srv, tc.st, tc.batch, nil) })
	}
}

// Random states, including drifted locks and lock_info, compared with
// upstream at several batch sizes.
func TestReapMatchesUpstreamRandom(t *testing.T) {
	srv := redistest.Start(t)
	jobs := []string{"a", "b:c", "d"}
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		st := workState{KnownJobs: jobs, Locks: map[string]int64{}, LockInfo: map[string]map[string]int64{}, Queues: map[string][]string{}}
		nDead := 1 + rng.Intn(3)
		for i := 0; i <= nDead; i++ {
			p := statePool{ID: fmt.Sprintf("pool%d", i), AgeSec: 30 + int64(rng.Intn(100)), InProgress: map[string][]string{}}
			if i == nDead {
				p.AgeSec = 2 // a live pool
			}
			for _, j := range jobs {
				if rng.Intn(4) == 0 {
					continue
				}
				p.JobNames = append(p.JobNames, j)
				n := rng.Intn(25)
				p.InProgress[j] = jobPayloads(fmt.Sprintf("%s-%s", j, p.ID), n)
				if rng.Intn(4) > 0 {
					if st.LockInfo[j] == nil {
						st.LockInfo[j] = map[string]int64{}
					}
					v := int64(n + rng.Intn(7) - 3)
					if nDead == 1 && rng.Intn(5) == 0 {
						v = -int64(rng.Intn(3)) // negative only with one dead pool: then order cannot matter
					} else if v < 0 {
						v = 0
					}
					st.LockInfo[j][p.ID] = v
				}
			}
			if len(p.JobNames) == 0 {
				p.JobNames = []string{"a"}
			}
			st.Pools = append(st.Pools, p)
		}
		for _, j := range jobs {
			if rng.Intn(5) == 0 {
				continue
			}
			var sum int64
			for _, v := range st.LockInfo[j] {
				sum += v
			}
			st.Locks[j] = sum + int64(rng.Intn(11)-5)
			st.Queues[j] = jobPayloads("q"+j, rng.Intn(3))
		}
		batch := []int{1, 2, 7, 1000}[rng.Intn(4)]
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) { compareWithUpstream(t, srv, st, batch, nil) })
	}
}

func TestReapPoolWithoutHeartbeat(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	st := workState{
		KnownJobs: []string{"email"},
		Pools: []statePool{{ID: "nobeat", NoHeartbeat: true, InProgress: map[string][]string{
			"email": jobPayloads("e", 5), "unregistered": jobPayloads("u", 2)}}},
		Locks:    map[string]int64{"email": 5, "unregistered": 2},
		LockInfo: map[string]map[string]int64{"email": {"nobeat": 5}, "unregistered": {"nobeat": 2}},
	}
	st.write(t, c, "us")
	plan, res, err := planAndReap(t, srv.Pool(), c, "us", 2, Targets{PoolIDs: []string{"nobeat"}})
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Pools[0].HeartbeatMissing || plan.TotalJobs() != 5 {
		t.Fatalf("plan: %+v", plan)
	}
	if got := res.Pools[0].Moved; got["email"] != 5 || got["unregistered"] != 2 || !res.Pools[0].Reaped {
		t.Fatalf("result: %+v", res.Pools[0])
	}
	d := dumpNamespace(t, c, "us")
	for _, k := range []string{"jobs:email:nobeat:inprogress", "jobs:unregistered:nobeat:inprogress", "worker_pools", "jobs:email:lock_info"} {
		if _, ok := d[k]; ok {
			t.Errorf("%s still there: %q", k, d[k])
		}
	}
	if d["jobs:email:lock"] != "string:0" || d["jobs:unregistered:lock"] != "string:0" {
		t.Errorf("locks: %q %q", d["jobs:email:lock"], d["jobs:unregistered:lock"])
	}
	// RPOPLPUSH from the right of the list onto the left of the queue
	// keeps the order.
	if d["jobs:email"] != "list:"+strings.Join(jobPayloads("e", 5), "\n") {
		t.Errorf("queue email: %q", d["jobs:email"])
	}
}

// A pool that beats again between the plan and the execution is left
// exactly as it is, whichever script call notices.
func TestReapAliveAgain(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	st := workState{
		KnownJobs: []string{"email"},
		Pools:     []statePool{{ID: "p1", AgeSec: 60, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("e", 5)}}},
		Locks:     map[string]int64{"email": 5},
		LockInfo:  map[string]map[string]int64{"email": {"p1": 5}},
	}
	k := redisq.NewKeys("us")
	for _, tc := range []struct {
		name   string
		revive func(t *testing.T)
	}{
		{"fresh heartbeat_at", func(t *testing.T) {
			redistest.Do(t, c, "HSET", k.Heartbeat("p1"), "heartbeat_at", redistest.Time(t, c).Unix())
		}},
		{"heartbeat_at a little in the future (clock skew)", func(t *testing.T) {
			redistest.Do(t, c, "HSET", k.Heartbeat("p1"), "heartbeat_at", redistest.Time(t, c).Unix()+3)
		}},
		{"heartbeat_at no longer a number", func(t *testing.T) {
			redistest.Do(t, c, "HSET", k.Heartbeat("p1"), "heartbeat_at", "soon")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redistest.Do(t, c, "FLUSHALL")
			st.write(t, c, "us")
			plan := planAllDead(t, c, "us")
			tc.revive(t)
			before := dumpNamespace(t, c, "us")
			res, err := NewReaper(srv.Pool(), "us", 2).Reap(context.Background(), plan, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := "pool p1 is alive again, not reaped"; res.Pools[0].Skipped != want || res.Pools[0].Reaped || res.TotalMoved() != 0 {
				t.Fatalf("result %+v, want skipped %q", res.Pools[0], want)
			}
			requireUnchanged(t, before, dumpNamespace(t, c, "us"))
		})
	}

	t.Run("beats again between two batches", func(t *testing.T) {
		redistest.Do(t, c, "FLUSHALL")
		st.write(t, c, "us")
		plan := planAllDead(t, c, "us")
		calls := 0
		res, err := NewReaper(srv.Pool(), "us", 2).Reap(context.Background(), plan, func(moved, total int64) {
			calls++
			if calls == 1 {
				redistest.Do(t, c, "HSET", k.Heartbeat("p1"), "heartbeat_at", redistest.Time(t, c).Unix())
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Pools[0].Reaped || res.TotalMoved() != 2 || !strings.Contains(res.Pools[0].Skipped, "alive again") {
			t.Fatalf("result %+v", res.Pools[0])
		}
		d := dumpNamespace(t, c, "us")
		if d["jobs:email:lock"] != "string:3" || d["jobs:email:lock_info"] != "hash:p1=3" || !strings.HasPrefix(d["worker_pools"], "set:p1") {
			t.Fatalf("after 1 batch: %v", d)
		}
	})
}

// A plan that saw no heartbeat requires it still missing.
func TestReapMissingHeartbeatAppears(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	st := workState{KnownJobs: []string{"email"}, Pools: []statePool{{ID: "p1", NoHeartbeat: true, InProgress: map[string][]string{"email": jobPayloads("e", 3)}}}}
	st.write(t, c, "us")
	plan := planAllDead(t, c, "us")
	// Even an old heartbeat_at counts: the plan was made for a pool without one.
	redistest.Do(t, c, "HSET", redisq.NewKeys("us").Heartbeat("p1"), "heartbeat_at", redistest.Time(t, c).Unix()-3600, "job_names", "email")
	before := dumpNamespace(t, c, "us")
	res, err := NewReaper(srv.Pool(), "us", 0).Reap(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pools[0].Skipped != "pool p1 is alive again, not reaped" {
		t.Fatalf("result %+v", res.Pools[0])
	}
	requireUnchanged(t, before, dumpNamespace(t, c, "us"))
}

// A heartbeat that changed but is still older than the cut-off by Redis
// time is still dead.
func TestReapChangedButStillOld(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	st := workState{KnownJobs: []string{"email"}, Pools: []statePool{{ID: "p1", AgeSec: 60, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("e", 3)}}}}
	st.write(t, c, "us")
	plan := planAllDead(t, c, "us")
	redistest.Do(t, c, "HSET", redisq.NewKeys("us").Heartbeat("p1"), "heartbeat_at", redistest.Time(t, c).Unix()-30)
	res, err := NewReaper(srv.Pool(), "us", 0).Reap(context.Background(), plan, nil)
	if err != nil || !res.Pools[0].Reaped || res.TotalMoved() != 3 {
		t.Fatalf("result %+v, %v", res, err)
	}
}

// An interruption between two script calls (the context is cancelled, as a
// kill between calls would stop it) leaves a consistent state: every job is
// in exactly one place, and lock - lock_info[pool] is what it was. A second
// run from a fresh plan finishes with upstream's end state.
func TestReapInterruptedThenRerun(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	st := workState{
		KnownJobs: []string{"email", "sms"},
		Pools: []statePool{{ID: "p1", AgeSec: 60, JobNames: []string{"email", "sms"}, InProgress: map[string][]string{
			"email": jobPayloads("e", 25), "sms": jobPayloads("s", 8)}}},
		Locks:    map[string]int64{"email": 24, "sms": 9},
		LockInfo: map[string]map[string]int64{"email": {"p1": 23}, "sms": {"p1": 8}},
	}
	st.Now = redistest.Time(t, c).Unix()
	st.write(t, c, "up")
	st.write(t, c, "us")
	upstreamReap(t, c, "up", nil)

	plan := planAllDead(t, c, "us")
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	res, err := NewReaper(srv.Pool(), "us", 10).Reap(ctx, plan, func(moved, total int64) {
		calls++
		if calls == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || res.TotalMoved() != 20 {
		t.Fatalf("interrupted reap: moved %d, err %v", res.TotalMoved(), err)
	}
	k := redisq.NewKeys("us")
	all := map[string]bool{}
	for _, key := range []string{k.Queue("email"), k.Queue("sms"), k.InProgress("email", "p1"), k.InProgress("sms", "p1")} {
		l, _ := redis.Strings(c.Do("LRANGE", key, 0, -1))
		for _, j := range l {
			if all[j] {
				t.Fatalf("job %s twice", j)
			}
			all[j] = true
		}
	}
	if len(all) != 33 {
		t.Fatalf("%d jobs, want 33", len(all))
	}
	lock, _ := redis.Int64(c.Do("GET", k.Lock("email")))
	info, _ := redis.Int64(c.Do("HGET", k.LockInfo("email"), "p1"))
	if lock-info != 1 || info != 3 {
		t.Fatalf("email after interruption: lock %d lock_info %d, want 4 and 3", lock, info)
	}

	if _, res, err = planAndReap(t, srv.Pool(), c, "us", 10, Targets{AllDead: true}); err != nil || res.TotalMoved() != 13 {
		t.Fatalf("second run: moved %d, %v", res.TotalMoved(), err)
	}
	if d := diffDumps(dumpNamespace(t, c, "up"), dumpNamespace(t, c, "us")); d != "" {
		t.Fatalf("after the second run:\n%s", d)
	}
}

// Two reapers at once on the same pool, ours against ours and ours against
// the upstream port: no job duplicated or lost, no lock subtracted twice.
func TestReapConcurrent(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	st := workState{
		KnownJobs: []string{"email", "sms"},
		Pools: []statePool{
			{ID: "p1", AgeSec: 60, JobNames: []string{"email", "sms"}, InProgress: map[string][]string{"email": jobPayloads("e", 1500), "sms": jobPayloads("s", 300)}},
			{ID: "live", AgeSec: 1, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("l", 4)}},
		},
		Locks:    map[string]int64{"email": 1504, "sms": 300},
		LockInfo: map[string]map[string]int64{"email": {"p1": 1500, "live": 4}, "sms": {"p1": 300}},
	}
	st.Now = redistest.Time(t, c).Unix()
	st.write(t, c, "want")
	upstreamReap(t, c, "want", nil)
	want := dumpNamespace(t, c, "want")

	for _, other := range []string{"ours", "upstream"} {
		t.Run("ours and "+other, func(t *testing.T) {
			redistest.Do(t, c, "DEL", "us:worker_pools") // leftovers of the previous run
			for _, key := range redisKeys(t, c, "us:*") {
				redistest.Do(t, c, "DEL", key)
			}
			st.write(t, c, "us")
			snap := readSnapshot(t, c, "us", model.DefaultDeadAfter)
			plan, err := NewPlan(snap, Targets{AllDead: true})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			results := make([]Result, 2)
			errs := make([]error, 2)
			wg.Add(2)
			go func() {
				defer wg.Done()
				results[0], errs[0] = NewReaper(srv.Pool(), "us", 7).Reap(context.Background(), plan, nil)
			}()
			go func() {
				defer wg.Done()
				if other == "ours" {
					results[1], errs[1] = NewReaper(srv.Pool(), "us", 13).Reap(context.Background(), plan, nil)
					return
				}
				cc := srv.Dial()
				upstreamReap(t, cc, "us", nil)
			}()
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			if d := diffDumps(sortQueues(want), sortQueues(dumpNamespace(t, c, "us"))); d != "" {
				t.Fatalf("end state:\n%s", d)
			}
			if other == "ours" {
				// Each pool is reaped by one of them; the other finds it gone
				// with nothing left.
				for i, pr := range results[0].Pools {
					qr := results[1].Pools[i]
					if pr.Reaped == qr.Reaped || (!pr.Reaped && (!pr.Gone || pr.Left != 0)) || (!qr.Reaped && (!qr.Gone || qr.Left != 0)) {
						t.Errorf("pool %s: %+v and %+v", pr.PoolID, pr, qr)
					}
				}
			}
			moved := results[0].TotalMoved() + results[1].TotalMoved()
			if other == "ours" && moved != 1800 {
				t.Fatalf("moved %d in all, want 1800", moved)
			}
			t.Logf("first reaper moved %d, second %d", results[0].TotalMoved(), results[1].TotalMoved())
		})
	}
}

// sortQueues compares queues as multisets: concurrent reapers interleave.
func sortQueues(d map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range d {
		if strings.HasPrefix(v, "list:") {
			v = sortLines(v)
		}
		out[k] = v
	}
	return out
}

func redisKeys(t *testing.T, c redis.Conn, match string) []string {
	t.Helper()
	keys, err := redis.Strings(c.Do("KEYS", match))
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestReapGoneAndBadData(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("us")
	st := workState{KnownJobs: []string{"email"}, Pools: []statePool{{ID: "p1", AgeSec: 60, JobNames: []string{"email"}, InProgress: map[string][]string{"email": jobPayloads("e", 3)}}}}

	t.Run("removed from the set meanwhile", func(t *testing.T) {
		redistest.Do(t, c, "FLUSHALL")
		st.write(t, c, "us")
		plan := planAllDead(t, c, "us")
		redistest.Do(t, c, "SREM", k.WorkerPools(), "p1")
		before := dumpNamespace(t, c, "us")
		res, err := NewReaper(srv.Pool(), "us", 0).Reap(context.Background(), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		if pr := res.Pools[0]; pr.Reaped || !pr.Gone || pr.Left != 3 || !strings.Contains(pr.Skipped, "no longer in us:worker_pools") {
			t.Fatalf("result %+v", pr)
		}
		requireUnchanged(t, before, dumpNamespace(t, c, "us"))
	})
	t.Run("lock not an integer", func(t *testing.T) {
		redistest.Do(t, c, "FLUSHALL")
		st.write(t, c, "us")
		redistest.Do(t, c, "SET", k.Lock("email"), "many")
		plan := planAllDead(t, c, "us")
		before := dumpNamespace(t, c, "us")
		res, err := NewReaper(srv.Pool(), "us", 0).Reap(context.Background(), plan, nil)
		if !errors.Is(err, ErrBadValue) || !errors.Is(err, ErrBadData) || !strings.Contains(err.Error(), "us:jobs:email:lock holds many") || res.Pools[0].Err == nil {
			t.Fatalf("err %v", err)
		}
		requireUnchanged(t, before, dumpNamespace(t, c, "us"))
	})
	t.Run("queue of the wrong type", func(t *testing.T) {
		redistest.Do(t, c, "FLUSHALL")
		st.write(t, c, "us")
		redistest.Do(t, c, "SET", k.Queue("email"), "x")
		plan := planAllDead(t, c, "us")
		before := dumpNamespace(t, c, "us")
		if _, err := NewReaper(srv.Pool(), "us", 0).Reap(context.Background(), plan, nil); !errors.Is(err, ErrBadData) || !errors.Is(err, ErrWrongType) {
			t.Fatalf("err %v", err)
		}
		requireUnchanged(t, before, dumpNamespace(t, c, "us"))
	})
}
