package exporter_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/exporter"
	"github.com/workq-tui/workq-tui/exporter/exportertest"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

const ns = "myapp"

// buildState writes a namespace by hand as gocraft/work would leave it: a
// live pool, a dead pool holding jobs, a pool in the set without a
// heartbeat, a queue with a latency, drift, a paused type with a cap, retry
// and dead jobs, and an orphaned in-progress list.
func buildState(t *testing.T, c redis.Conn) {
	t.Helper()
	tv, err := redis.Int64s(c.Do("TIME"))
	if err != nil {
		t.Fatal(err)
	}
	now := tv[0]
	do := func(cmd string, args ...any) {
		t.Helper()
		if _, err := c.Do(cmd, args...); err != nil {
			t.Fatalf("%s %v: %v", cmd, args, err)
		}
	}
	job := func(name string, id int, at int64) string {
		return fmt.Sprintf(`{"name":%q,"id":"j%d","t":%d,"args":{}}`, name, id, at)
	}
	do("SADD", ns+":worker_pools", "aaaa01", "dddd02", "eeee03")
	do("HSET", ns+":worker_pools:aaaa01", "heartbeat_at", now, "started_at", now-100, "host", "web-1", "pid", 11,
		"concurrency", 2, "job_names", "email,resize", "worker_ids", "w1,w2")
	do("HSET", ns+":worker_pools:dddd02", "heartbeat_at", now-60, "started_at", now-600, "host", "web-2", "pid", 12,
		"concurrency", 2, "job_names", "email,resize", "worker_ids", "w3,w4")
	do("SADD", ns+":known_jobs", "email", "resize")
	do("LPUSH", ns+":jobs:email", job("email", 1, now-30), job("email", 2, now-5))
	do("LPUSH", ns+":jobs:email:dddd02:inprogress", job("email", 3, now-90), job("email", 4, now-80))
	do("LPUSH", ns+":jobs:email:aaaa01:inprogress", job("email", 5, now-2))
	do("SET", ns+":jobs:email:lock", 4) // drift: lock_info and the lists say 3
	do("HSET", ns+":jobs:email:lock_info", "dddd02", 2, "aaaa01", 1)
	do("SET", ns+":jobs:resize:max_concurrency", 4)
	do("SET", ns+":jobs:resize:paused", 1)
	do("LPUSH", ns+":jobs:email:ffff09:inprogress", job("email", 6, now-900), job("email", 7, now-900), job("email", 8, now-900))
	do("ZADD", ns+":retry", now+60, job("email", 9, now-100), now+120, job("email", 10, now-100))
	do("ZADD", ns+":dead", now-10, job("resize", 11, now-1000), now-20, job("resize", 12, now-1000), now-30, job("email", 13, now-1000))
}

// readOnlyCommands fails the test when Redis ran any command between the
// two counts that a read-only connection would refuse, INFO (the test's
// own) aside.
func readOnlyCommands(t *testing.T, delta map[string]int64) {
	t.Helper()
	var bad []string
	for cmd, n := range delta {
		if cmd == "info" || redisq.IsReadCommand(cmd) {
			continue
		}
		bad = append(bad, fmt.Sprintf("%s x%d", cmd, n))
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("commands outside the read allow-list while the exporter ran: %s", strings.Join(bad, ", "))
	}
}

func redisTarget(t *testing.T, name, addr string, timeout time.Duration) exporter.Target {
	t.Helper()
	src, err := exporter.NewRedisSource(redisq.Options{Address: addr, Timeout: timeout}, ns, 0)
	if err != nil {
		t.Fatal(err)
	}
	return src.Target(name)
}

func TestExporterMatchesSnapshot(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	buildState(t, c)
	stats0 := redistest.CommandCalls(t, c)

	clock := NewClock()
	e, err := exporter.New([]exporter.Target{redisTarget(t, "prod", srv.Addr(), 5*time.Second)},
		exporter.Options{MinInterval: 15 * time.Second, ScanInterval: time.Hour, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e.Handler())
	defer func() { hs.Close(); e.Close() }()
	url := hs.URL + "/metrics"

	got := exportertest.Scrape(t, url)
	snap, err := redisq.NewClient(redisq.OneConn(c), ns, 0).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The hand-made state shows what it was built to show.
	if len(snap.DeadPools()) != 2 || !snap.JobTypes[0].Drift || !snap.JobTypes[1].Paused ||
		snap.Sets != (model.SetCounts{Retry: 2, Dead: 3}) {
		t.Fatalf("state not as built: dead %v, job types %+v, sets %+v", snap.DeadPools(), snap.JobTypes, snap.Sets)
	}
	if d := exportertest.Diff(got.Only(exportertest.SnapshotNames()...), exportertest.Want("prod", snap), 2); d != "" {
		t.Errorf("exporter and snapshot differ:\n%s", d)
	}
	up := exportertest.Key("workq_up", "target", "prod", "namespace", ns)
	if got[up] != 1 {
		t.Errorf("workq_up = %v", got[up])
	}

	// The orphan scan runs apart from the reads; once it is done its
	// numbers are the orphan scan's.
	orph, err := redisq.ScanOrphans(context.Background(), c, redisq.NewKeys(ns), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var jobs int64
	for _, o := range orph.Orphans {
		jobs += o.Length
	}
	lists := exportertest.Key("workq_orphaned_lists", "target", "prod", "namespace", ns)
	orphJobs := exportertest.Key("workq_orphaned_jobs", "target", "prod", "namespace", ns)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := got[lists]; ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
		got = exportertest.Scrape(t, url)
	}
	if len(orph.Orphans) != 1 || got[lists] != float64(len(orph.Orphans)) || got[orphJobs] != float64(jobs) {
		t.Errorf("orphans: exporter lists %v jobs %v; scan %d lists %d jobs", got[lists], got[orphJobs], len(orph.Orphans), jobs)
	}

	// 50 scrapes at once, the minimum interval over: one read of Redis
	// (a snapshot sends TIME once).
	before := redistest.CommandCalls(t, c)
	clock.Add(16 * time.Second)
	scrapeConcurrently(t, hs.URL, 50)
	delta := exportertest.Delta(before, redistest.CommandCalls(t, c))
	if delta["time"] != 1 {
		t.Errorf("50 concurrent scrapes sent TIME %d times, want 1 (one read); commands: %v", delta["time"], delta)
	}
	// And within the interval, none.
	before = redistest.CommandCalls(t, c)
	clock.Add(14 * time.Second)
	scrapeConcurrently(t, hs.URL, 10)
	if delta := exportertest.Delta(before, redistest.CommandCalls(t, c)); len(delta) != 1 {
		t.Errorf("scrapes within the minimum interval reached Redis: %v", delta)
	}

	readOnlyCommands(t, exportertest.Delta(stats0, redistest.CommandCalls(t, c)))
}

// hangingRedis accepts connections and never answers.
func hangingRedis(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

func TestDownTargetDoesNotBlockTheOthers(t *testing.T) {
	upSrv := redistest.Start(t)
	downSrv := redistest.Start(t)
	c := upSrv.Dial()
	buildState(t, c)
	stats0 := redistest.CommandCalls(t, c)
	e, err := exporter.New([]exporter.Target{
		redisTarget(t, "up", upSrv.Addr(), 5*time.Second),
		redisTarget(t, "down", downSrv.Addr(), 5*time.Second),
		redisTarget(t, "hanging", hangingRedis(t), 5*time.Second),
	}, exporter.Options{MinInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e.Handler())
	defer func() { hs.Close(); e.Close() }()

	first := exportertest.Scrape(t, hs.URL+"/metrics")
	key := func(target string) string { return exportertest.Key("workq_up", "target", target, "namespace", ns) }
	if first[key("down")] != 1 || first[key("up")] != 1 {
		t.Fatalf("before the stop: up %v, down %v", first[key("up")], first[key("down")])
	}
	downSrv.Stop()
	for i := 0; i < 3; i++ {
		time.Sleep(5 * time.Millisecond)
		start := time.Now()
		got := exportertest.Scrape(t, hs.URL+"/metrics")
		if took := time.Since(start); took > time.Second {
			t.Errorf("scrape %d took %v with a target stopped and one hanging", i, took)
		}
		if got[key("down")] != 0 || got[key("hanging")] != 0 || got[key("up")] != 1 {
			t.Errorf("scrape %d: workq_up up=%v down=%v hanging=%v; want 1 0 0", i, got[key("up")], got[key("down")], got[key("hanging")])
		}
		// The stopped target keeps its last values.
		if d := exportertest.Diff(got.Target("down").Only("workq_pools"), first.Target("down").Only("workq_pools"), 0); d != "" {
			t.Errorf("the stopped target lost its last values:\n%s", d)
		}
		if errs := got[exportertest.Key("workq_read_errors_total", "target", "down", "namespace", ns)]; errs < 1 {
			t.Errorf("workq_read_errors_total{down} = %v", errs)
		}
	}
	readOnlyCommands(t, exportertest.Delta(stats0, redistest.CommandCalls(t, c)))
}

// The source's connections refuse writes whatever the options say.
func TestRedisSourceIsReadOnly(t *testing.T) {
	srv := redistest.Start(t)
	src, err := exporter.NewRedisSource(redisq.Options{Address: srv.Addr(), ReadOnly: false}, ns, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, err := range exporter.WriteThrough(src) {
		if !errors.Is(err, redisq.ErrReadOnly) {
			t.Errorf("write %d through the source: %v, want %v", i, err, redisq.ErrReadOnly)
		}
	}
	if n, _ := redis.Int(srv.Do("EXISTS", "exporter-write-probe"), nil); n != 0 {
		t.Error("a write through the source reached Redis")
	}
}

// The health series: an allkeys-lru Redis shows an eviction-policy finding
// and its policy; a Redis whose user may not run INFO shows readable 0 and
// still every snapshot series.
func TestExporterHealthSeries(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	buildState(t, c)
	srv.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	e, err := exporter.New([]exporter.Target{redisTarget(t, "prod", srv.Addr(), 5*time.Second)},
		exporter.Options{MinInterval: 15 * time.Second, ScanInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e.Handler())
	defer func() { hs.Close(); e.Close() }()
	got := exportertest.Scrape(t, hs.URL+"/metrics")
	key := func(name string, extra ...string) string {
		return exportertest.Key(name, append([]string{"target", "prod", "namespace", ns}, extra...)...)
	}
	for k, want := range map[string]float64{
		key("workq_redis_health_readable"):                                  1,
		key("workq_redis_health_findings", "kind", "redis_eviction_policy"): 1,
		key("workq_redis_health_findings", "kind", "redis_not_persisted"):   0,
		key("workq_redis_maxmemory_policy", "policy", "allkeys-lru"):        1,
		key("workq_redis_aof_enabled"):                                      1,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", k, v, ok, want)
		}
	}
	if got[key("workq_dead_oldest_age_seconds")] < 30 {
		t.Errorf("dead oldest age %v, want at least 30 (the oldest death is 30 s old)", got[key("workq_dead_oldest_age_seconds")])
	}
}
