package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// epoch is the simulated "now" of tests on miniredis: a fixed instant, so
// runs compare byte for byte.
var epoch = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// backend is a Redis server for the simulation plus how to point its TIME.
type backend struct {
	conn    redis.Conn
	dial    func() redis.Conn // another connection to the same server
	setTime func(time.Time)   // nil: the server's own clock
	now     time.Time         // the simulation's Options.Now
}

func miniBackend(t *testing.T) (backend, *miniredis.Miniredis) {
	t.Helper()
	mr := miniredis.RunT(t)
	c, err := redis.Dial("tcp", mr.Addr())
	if err != nil {
		t.Fatalf("dial miniredis: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	dial := func() redis.Conn {
		c, err := redis.Dial("tcp", mr.Addr())
		if err != nil {
			t.Fatalf("dial miniredis: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	return backend{conn: c, dial: dial, setTime: mr.SetTime, now: epoch}, mr
}

func realBackend(t *testing.T) backend {
	t.Helper()
	srv := redistest.Start(t)
	// The server's TIME is the wall clock; the simulation's history ends now.
	return backend{conn: srv.Dial(), dial: srv.Dial, now: time.Now()}
}

func newSim(t *testing.T, b backend, ns string, seed int64) *Sim {
	t.Helper()
	s := New(b.conn, Options{Namespace: ns, Seed: seed, Now: b.now, SetTime: b.setTime})
	if err := s.Init(context.Background()); err != nil {
		t.Fatalf("init: %v", err)
	}
	return s
}

// advance moves the simulation forward by d in steps of step, the way the
// live demo does, calling check after each step when it is set.
func advance(t *testing.T, s *Sim, d, step time.Duration, check func()) {
	t.Helper()
	end := s.Now().Add(d)
	for now := s.Now(); now.Before(end); {
		now = now.Add(step)
		if err := s.AdvanceTo(context.Background(), now); err != nil {
			t.Fatalf("advance: %v", err)
		}
		if check != nil {
			check()
		}
	}
}

// state is everything of a namespace the tests look at, read key by key.
type state struct {
	set        map[string]bool
	heartbeats map[string]map[string]string
	queues     map[string][]string
	inProgress map[string]map[string]int64 // job -> pool -> length
	lock       map[string]int64
	lockInfo   map[string]map[string]int64
	maxConc    map[string]int64
	knownJobs  map[string]bool
	paused     map[string]bool
	retry      int64
	dead       int64
}

func readState(t *testing.T, c redis.Conn, ns string) state {
	t.Helper()
	k := redisq.NewKeys(ns)
	st := state{
		set: map[string]bool{}, heartbeats: map[string]map[string]string{}, queues: map[string][]string{},
		inProgress: map[string]map[string]int64{}, lock: map[string]int64{}, lockInfo: map[string]map[string]int64{},
		maxConc: map[string]int64{}, knownJobs: map[string]bool{}, paused: map[string]bool{},
	}
	must := func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatalf("read state: %v", err)
		}
		return v
	}
	for _, id := range must(redis.Strings(c.Do("SMEMBERS", k.WorkerPools()))).([]string) {
		st.set[id] = true
	}
	for _, j := range must(redis.Strings(c.Do("SMEMBERS", k.KnownJobs()))).([]string) {
		st.knownJobs[j] = true
	}
	st.retry = must(redis.Int64(c.Do("ZCARD", k.Retry()))).(int64)
	st.dead = must(redis.Int64(c.Do("ZCARD", k.Dead()))).(int64)
	for _, key := range must(redis.Strings(c.Do("KEYS", k.Prefix()+"*"))).([]string) {
		rest := strings.TrimPrefix(key, k.Prefix())
		switch {
		case strings.HasPrefix(rest, "worker_pools:"):
			st.heartbeats[strings.TrimPrefix(rest, "worker_pools:")] = must(redis.StringMap(c.Do("HGETALL", key))).(map[string]string)
		case strings.HasSuffix(key, ":inprogress"):
			job, pool, ok := k.ParseInProgress(key)
			if !ok {
				t.Fatalf("unparsable in-progress key %q", key)
			}
			if st.inProgress[job] == nil {
				st.inProgress[job] = map[string]int64{}
			}
			st.inProgress[job][pool] = must(redis.Int64(c.Do("LLEN", key))).(int64)
		case strings.HasSuffix(key, ":lock_info"):
			job := strings.TrimSuffix(strings.TrimPrefix(rest, "jobs:"), ":lock_info")
			m := map[string]int64{}
			for f, v := range must(redis.StringMap(c.Do("HGETALL", key))).(map[string]string) {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatalf("%s[%s] = %q: %v", key, f, v, err)
				}
				m[f] = n
			}
			st.lockInfo[job] = m
		case strings.HasSuffix(key, ":lock"):
			st.lock[strings.TrimSuffix(strings.TrimPrefix(rest, "jobs:"), ":lock")] = must(redis.Int64(c.Do("GET", key))).(int64)
		case strings.HasSuffix(key, ":max_concurrency"):
			st.maxConc[strings.TrimSuffix(strings.TrimPrefix(rest, "jobs:"), ":max_concurrency")] = must(redis.Int64(c.Do("GET", key))).(int64)
		case strings.HasSuffix(key, ":paused"):
			st.paused[strings.TrimSuffix(strings.TrimPrefix(rest, "jobs:"), ":paused")] = true
		case strings.HasPrefix(rest, "jobs:"):
			st.queues[strings.TrimPrefix(rest, "jobs:")] = must(redis.Strings(c.Do("LRANGE", key, 0, -1))).([]string)
		}
	}
	return st
}

// consistency returns the job types whose lock, lock_info total and
// in-progress total (over the pools in the set) disagree.
func (st state) inconsistent(jobs []string) []string {
	var bad []string
	for _, j := range jobs {
		var info, inProg int64
		for _, n := range st.lockInfo[j] {
			info += n
		}
		for pool, n := range st.inProgress[j] {
			if st.set[pool] {
				inProg += n
			}
		}
		if st.lock[j] != info || info != inProg {
			bad = append(bad, fmt.Sprintf("%s: lock %d, lock_info %d, in progress %d", j, st.lock[j], info, inProg))
		}
	}
	return bad
}

func (st state) inProgressOf(pool string) int64 {
	var n int64
	for _, m := range st.inProgress {
		n += m[pool]
	}
	return n
}

func except(all []string, drop ...string) []string {
	var out []string
	for _, a := range all {
		keep := true
		for _, d := range drop {
			if a == d {
				keep = false
			}
		}
		if keep {
			out = append(out, a)
		}
	}
	return out
}

var poolIDRE = regexp.MustCompile(`^[0-9a-f]{24}$`)

// checkScenario checks the shape the demo promises at simulated time now.
func checkScenario(t *testing.T, st state, sc Scenario, now time.Time, ns string) {
	t.Helper()
	if len(sc.Live) != 4 {
		t.Fatalf("live pools = %d, want 4", len(sc.Live))
	}
	for _, id := range append(append([]string(nil), sc.Live...), sc.Dead, sc.Vanished, sc.Orphan) {
		if !poolIDRE.MatchString(id) {
			t.Errorf("pool ID %q is not 24 lower-case hex characters", id)
		}
	}
	for _, id := range sc.Live {
		hb := st.heartbeats[id]
		at, err := strconv.ParseInt(hb["heartbeat_at"], 10, 64)
		if !st.set[id] || err != nil {
			t.Errorf("live pool %s: in set %v, heartbeat %v", id, st.set[id], hb)
			continue
		}
		if age := now.Unix() - at; age < 0 || age > 5 {
			t.Errorf("live pool %s: heartbeat %d s old, want within one 5 s beat", id, age)
		}
		for _, f := range []string{"started_at", "job_names", "worker_ids", "concurrency", "host", "pid"} {
			if hb[f] == "" {
				t.Errorf("live pool %s: heartbeat has no %s: %v", id, f, hb)
			}
		}
	}
	// Dead: in the set, heartbeat well past the 10 s cut-off, jobs held.
	if hb := st.heartbeats[sc.Dead]; !st.set[sc.Dead] || hb == nil {
		t.Errorf("dead pool %s: in set %v, heartbeat %v", sc.Dead, st.set[sc.Dead], hb)
	} else if at, _ := strconv.ParseInt(hb["heartbeat_at"], 10, 64); now.Unix()-at < 30 {
		t.Errorf("dead pool %s: heartbeat only %d s old", sc.Dead, now.Unix()-at)
	}
	if n := st.inProgressOf(sc.Dead); n == 0 {
		t.Errorf("dead pool %s holds no jobs", sc.Dead)
	}
	// Vanished: in the set, no heartbeat hash, jobs held.
	if _, ok := st.heartbeats[sc.Vanished]; ok || !st.set[sc.Vanished] {
		t.Errorf("vanished pool %s: in set %v, heartbeat present %v", sc.Vanished, st.set[sc.Vanished], ok)
	}
	if n := st.inProgressOf(sc.Vanished); n == 0 {
		t.Errorf("vanished pool %s holds no jobs", sc.Vanished)
	}
	// Orphan: out of the set, no heartbeat, no lock_info, its list stayed.
	if _, ok := st.heartbeats[sc.Orphan]; ok || st.set[sc.Orphan] {
		t.Errorf("orphan pool %s: in set %v, heartbeat present %v", sc.Orphan, st.set[sc.Orphan], ok)
	}
	if st.inProgress[sc.OrphanJob][sc.Orphan] == 0 {
		t.Errorf("orphan list of %s for %s is empty", sc.OrphanJob, sc.Orphan)
	}
	if _, ok := st.lockInfo[sc.OrphanJob][sc.Orphan]; ok {
		t.Errorf("orphan pool %s still has a lock_info field", sc.Orphan)
	}
	// Drift: lock = max_concurrency + 2, nothing in progress.
	if mc := st.maxConc[sc.DriftJob]; mc == 0 || st.lock[sc.DriftJob] != mc+2 {
		t.Errorf("%s: lock %d, max_concurrency %d, want lock = max + 2", sc.DriftJob, st.lock[sc.DriftJob], mc)
	}
	for pool, n := range st.inProgress[sc.DriftJob] {
		if n != 0 {
			t.Errorf("%s: %d in progress at %s, want none", sc.DriftJob, n, pool)
		}
	}
	for _, j := range sc.JobNames {
		if !st.knownJobs[j] {
			t.Errorf("%s not in known_jobs", j)
		}
		for _, raw := range st.queues[j] {
			var v struct {
				Name string         `json:"name"`
				ID   string         `json:"id"`
				T    int64          `json:"t"`
				Args map[string]any `json:"args"`
			}
			if err := json.Unmarshal([]byte(raw), &v); err != nil || v.Name != j || !poolIDRE.MatchString(v.ID) || v.T <= 0 || v.T > now.Unix() || len(v.Args) == 0 {
				t.Errorf("queued %s job %s: %+v, %v", j, raw, v, err)
			}
		}
	}
	// Every job type other than the drifted one is consistent over the
	// pools in the set (the orphan list is outside by definition).
	if bad := st.inconsistent(except(sc.JobNames, sc.DriftJob)); len(bad) > 0 {
		t.Errorf("consistency rule broken: %v", bad)
	}
}

func TestScenarioAndConsistency(t *testing.T) {
	for _, name := range []string{"miniredis", "redis-server"} {
		t.Run(name, func(t *testing.T) {
			if name == "miniredis" && testing.Short() {
				// The same scenario on the real server stays in -short.
				t.Skip("the scenario on miniredis: left out of go test -short, run by make test")
			}
			var b backend
			if name == "miniredis" {
				b, _ = miniBackend(t)
			} else {
				b = realBackend(t)
			}
			const ns = "work"
			s := newSim(t, b, ns, 7)
			sc := s.Scenario()
			st0 := readState(t, b.conn, ns)
			checkScenario(t, st0, sc, s.Now(), ns)

			// Three more minutes in 250 ms steps, checking the rule on every
			// job type served only by live pools after each step, and on all
			// but the drifted one every 10 s.
			liveOnly := []string{"charge_card", "deliver_webhook"}
			steps := 0
			advance(t, s, 3*time.Minute, 250*time.Millisecond, func() {
				steps++
				st := readState(t, b.conn, ns)
				if bad := st.inconsistent(liveOnly); len(bad) > 0 {
					t.Fatalf("after %d steps: %v", steps, bad)
				}
				if mc := st.maxConc["charge_card"]; st.lock["charge_card"] > mc {
					t.Fatalf("charge_card lock %d above its max_concurrency %d", st.lock["charge_card"], mc)
				}
			})
			st := readState(t, b.conn, ns)
			checkScenario(t, st, sc, s.Now(), ns)
			if got, before := len(st.queues[sc.DriftJob]), len(st0.queues[sc.DriftJob]); got <= before {
				t.Errorf("%s queue did not grow behind its drifted lock: %d -> %d", sc.DriftJob, before, got)
			}
			stats := s.Stats()
			t.Logf("%s: %+v, retry %d, dead %d", name, stats, st.retry, st.dead)
			// The last live pool's workers are stuck for hours.
			for _, id := range sc.Live[:3] {
				if stats.FinishedBy[id] == 0 {
					t.Errorf("live pool %s finished no job", id)
				}
			}
			// The live pools keep up: no live-only queue holds more than
			// a minute of its arrivals.
			for _, j := range liveOnly {
				if n := len(st.queues[j]); n > 40 {
					t.Errorf("%s queue grew to %d", j, n)
				}
			}
		})
	}
}

// TestScenarioEverySeed: the scenario's shape must not depend on luck.
func TestScenarioEverySeed(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			b, _ := miniBackend(t)
			s := newSim(t, b, "work", seed)
			checkScenario(t, readState(t, b.conn, "work"), s.Scenario(), s.Now(), "work")
		})
	}
}

func TestDeterminism(t *testing.T) {
	run := func(seed int64) map[string]string {
		b, _ := miniBackend(t)
		s := newSim(t, b, "myapp-work", seed)
		advance(t, s, time.Minute, 100*time.Millisecond, nil)
		return redistest.Dump(t, b.conn, "*")
	}
	a, b, c := run(42), run(42), run(43)
	if len(a) < 20 {
		t.Fatalf("dump has only %d keys", len(a))
	}
	if diff := dumpDiff(a, b); diff != "" {
		t.Errorf("same seed, different state:\n%s", diff)
	}
	if dumpDiff(a, c) == "" {
		t.Errorf("seeds 42 and 43 gave the same state")
	}
}

func dumpDiff(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, fmt.Sprintf("%s: %.80q vs %.80q", k, v, w))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+": only in the second")
		}
	}
	if len(out) > 10 {
		out = append(out[:10], fmt.Sprintf("... %d more", len(out)-10))
	}
	return strings.Join(out, "\n")
}

func TestNamespaceWithColon(t *testing.T) {
	b, _ := miniBackend(t)
	newSim(t, b, "app:", 1)
	keys, err := redis.Strings(b.conn.Do("KEYS", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "app:") || strings.HasPrefix(k, "app::") {
			t.Errorf("key %q outside namespace app:", k)
		}
	}
}
