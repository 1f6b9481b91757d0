package exporter_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/exporter"
	"github.com/workq-tui/workq-tui/exporter/exportertest"
	"github.com/workq-tui/workq-tui/model"
)

// fakeReader returns the snapshots of its script in turn (the last one
// again once they run out); a nil entry fails; block makes reads wait for
// their context.
type fakeReader struct {
	mu     sync.Mutex
	script []*model.Snapshot
	block  atomic.Bool
	delay  time.Duration
	calls  atomic.Int64
}

func (f *fakeReader) Read(ctx context.Context) (*model.Snapshot, error) {
	n := f.calls.Add(1)
	if f.block.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	i := int(n) - 1
	if i >= len(f.script) {
		i = len(f.script) - 1
	}
	if f.script[i] == nil {
		return nil, errors.New("connection refused")
	}
	return f.script[i], nil
}

type fakeScanner struct {
	orphans []model.InProgressList
	calls   atomic.Int64
}

func (f *fakeScanner) ScanOrphans(context.Context) ([]model.InProgressList, error) {
	f.calls.Add(1)
	return f.orphans, nil
}

func dur(d time.Duration) *time.Duration { return &d }

func pool(id string, st model.Status, age time.Duration, host string, inProgress map[string]int64) model.Pool {
	return model.Pool{ID: id, Status: st, HeartbeatAge: dur(age), Heartbeat: &model.Heartbeat{Host: host}, InProgress: inProgress}
}

func snapshot(pools ...model.Pool) *model.Snapshot {
	return &model.Snapshot{
		Namespace: "myapp",
		Pools:     pools,
		JobTypes: []model.JobType{
			{Name: "email", Queued: 12, Latency: dur(90 * time.Second), InProgress: 3, Lock: 4, LockInfoTotal: 3, MaxConcurrency: 5, Drift: true},
			{Name: "resize", Queued: 0, InProgress: 0, Paused: true},
			{Name: "broken", Queued: 2}, // oldest job unreadable: no latency series
		},
	}
}

func serve(t *testing.T, targets []exporter.Target, opts exporter.Options) string {
	t.Helper()
	e, err := exporter.New(targets, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.Handler())
	t.Cleanup(func() { srv.Close(); e.Close() })
	return srv.URL
}

func TestSeriesFromSnapshot(t *testing.T) {
	snap := snapshot(
		pool("dead1", model.StatusDead, 40*time.Second, "h1", map[string]int64{"email": 2}),
		pool("alive1", model.StatusAlive, 2*time.Second, "h2", map[string]int64{"email": 1}),
		model.Pool{ID: "nohb", Status: model.StatusDead},
	)
	snap.Sets = model.SetCounts{Retry: 4, Dead: 11024}
	snap.Workers = workers()
	r := &fakeReader{script: []*model.Snapshot{snap}}
	url := serve(t, []exporter.Target{{Name: "prod", Namespace: "myapp", Reader: r}}, exporter.Options{})
	got := exportertest.Scrape(t, url+"/metrics")
	k := func(name string, l ...string) string {
		return exportertest.Key(name, append([]string{"target", "prod", "namespace", "myapp"}, l...)...)
	}
	want := exportertest.Series{
		k("workq_pools", "status", "alive"):                                   1,
		k("workq_pools", "status", "late"):                                    0,
		k("workq_pools", "status", "dead"):                                    2,
		k("workq_pools_truncated"):                                            0,
		k("workq_set_jobs", "set", "retry"):                                   4,
		k("workq_set_jobs", "set", "scheduled"):                               0,
		k("workq_set_jobs", "set", "dead"):                                    11024,
		k("workq_busy_workers"):                                               3,
		k("workq_long_running_jobs"):                                          1,
		k("workq_pool_heartbeat_age_seconds", "pool", "dead1", "host", "h1"):  40,
		k("workq_pool_heartbeat_age_seconds", "pool", "alive1", "host", "h2"): 2,
		k("workq_pool_in_progress", "pool", "dead1"):                          2,
		k("workq_pool_in_progress", "pool", "alive1"):                         1,
		k("workq_pool_in_progress", "pool", "nohb"):                           0,
		k("workq_job_queued", "job", "email"):                                 12,
		k("workq_job_latency_seconds", "job", "email"):                        90,
		k("workq_job_in_progress", "job", "email"):                            3,
		k("workq_job_lock", "job", "email"):                                   4,
		k("workq_job_lock_info_held", "job", "email"):                         3,
		k("workq_job_max_concurrency", "job", "email"):                        5,
		k("workq_job_paused", "job", "email"):                                 0,
		k("workq_job_drift", "job", "email"):                                  1,
		k("workq_job_queued", "job", "resize"):                                0,
		k("workq_job_latency_seconds", "job", "resize"):                       0,
		k("workq_job_in_progress", "job", "resize"):                           0,
		k("workq_job_lock", "job", "resize"):                                  0,
		k("workq_job_lock_info_held", "job", "resize"):                        0,
		k("workq_job_max_concurrency", "job", "resize"):                       0,
		k("workq_job_paused", "job", "resize"):                                1,
		k("workq_job_drift", "job", "resize"):                                 0,
		k("workq_job_queued", "job", "broken"):                                2,
		k("workq_job_in_progress", "job", "broken"):                           0,
		k("workq_job_lock", "job", "broken"):                                  0,
		k("workq_job_lock_info_held", "job", "broken"):                        0,
		k("workq_job_max_concurrency", "job", "broken"):                       0,
		k("workq_job_paused", "job", "broken"):                                0,
		k("workq_job_drift", "job", "broken"):                                 0,
	}
	if d := exportertest.Diff(got.Only(exportertest.SnapshotNames()...), want, 0); d != "" {
		t.Errorf("series differ:\n%s", d)
	}
	// The shared expectation agrees with the hand-written one.
	if d := exportertest.Diff(exportertest.Want("prod", snap), want, 0); d != "" {
		t.Errorf("exportertest.Want differs from the hand-written series:\n%s", d)
	}
	if got[k("workq_up")] != 1 || got[k("workq_read_errors_total")] != 0 {
		t.Errorf("up %v, read errors %v; want 1, 0", got[k("workq_up")], got[k("workq_read_errors_total")])
	}
	if _, ok := got[k("workq_read_duration_seconds")]; !ok {
		t.Error("no workq_read_duration_seconds")
	}
	if _, ok := got[k("workq_orphaned_lists")]; ok {
		t.Error("workq_orphaned_lists without an orphan scanner")
	}
}

// workers are four workers: one idle, one busy for 30 s, one for 20 min and
// one busy with no start time (running time unknown).
func workers() []model.Worker {
	return []model.Worker{
		{WorkerID: "w1", PoolID: "alive1"},
		{WorkerID: "w2", PoolID: "alive1", Busy: true, JobName: "email", Running: dur(30 * time.Second)},
		{WorkerID: "w3", PoolID: "dead1", Busy: true, JobName: "email", Running: dur(20 * time.Minute)},
		{WorkerID: "w4", PoolID: "dead1", Busy: true, JobName: "email"},
	}
}

// The long-running count follows Options.LongAfter, as snapshot's
// long_running findings follow --long-after.
func TestLongRunningFollowsLongAfter(t *testing.T) {
	snap := snapshot()
	snap.Workers = workers()
	k := func(name string) string { return exportertest.Key(name, "target", "prod", "namespace", "myapp") }
	for _, c := range []struct {
		longAfter time.Duration
		want      float64
	}{{0, 1}, {10 * time.Second, 2}, {30 * time.Second, 1}, {time.Hour, 0}} {
		url := serve(t, []exporter.Target{{Name: "prod", Namespace: "myapp", Reader: &fakeReader{script: []*model.Snapshot{snap}}}},
			exporter.Options{LongAfter: c.longAfter})
		got := exportertest.Scrape(t, url+"/metrics")
		if got[k("workq_long_running_jobs")] != c.want || got[k("workq_busy_workers")] != 3 {
			t.Errorf("long-after %v: %v long-running, %v busy; want %v, 3", c.longAfter,
				got[k("workq_long_running_jobs")], got[k("workq_busy_workers")], c.want)
		}
		want := *snap
		want.LongAfter = c.longAfter
		if w := exportertest.Want("prod", &want)[k("workq_long_running_jobs")]; w != c.want {
			t.Errorf("long-after %v: exportertest.Want gives %v long-running, want %v", c.longAfter, w, c.want)
		}
		// So do snapshot's long_running findings.
		if want.LongAfter == 0 {
			want.LongAfter = model.DefaultLongAfter
		}
		n := 0
		for _, f := range model.Findings(&want) {
			if f.Kind == model.FindingLongRunning {
				n++
			}
		}
		if float64(n) != c.want {
			t.Errorf("long-after %v: %d long_running findings, want %v", c.longAfter, n, c.want)
		}
	}
}

// Clock is a clock the test moves.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

func NewClock() *Clock { return &Clock{now: time.Unix(1_700_000_000, 0)} }

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestReadsAreSharedAndPaced(t *testing.T) {
	r := &fakeReader{script: []*model.Snapshot{snapshot()}, delay: 50 * time.Millisecond}
	clock := NewClock()
	url := serve(t, []exporter.Target{{Name: "a", Namespace: "myapp", Reader: r}},
		exporter.Options{MinInterval: 15 * time.Second, ScrapeWait: 5 * time.Second, Now: clock.Now})
	exportertest.Scrape(t, url+"/metrics")
	for i := 0; i < 10; i++ {
		clock.Add(time.Second)
		exportertest.Scrape(t, url+"/metrics")
	}
	if n := r.calls.Load(); n != 1 {
		t.Fatalf("11 scrapes within the minimum interval made %d reads, want 1", n)
	}
	clock.Add(5 * time.Second)
	scrapeConcurrently(t, url, 50)
	if n := r.calls.Load(); n != 2 {
		t.Fatalf("50 concurrent scrapes after the minimum interval made %d reads in all, want 2", n)
	}
}

func scrapeConcurrently(t *testing.T, url string, n int) []exportertest.Series {
	t.Helper()
	out := make([]exportertest.Series, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = exportertest.TryScrape(url + "/metrics")
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSlowTargetAnswersWithLastValues(t *testing.T) {
	fast := &fakeReader{script: []*model.Snapshot{snapshot()}}
	slow := &fakeReader{script: []*model.Snapshot{snapshot(pool("p1", model.StatusAlive, time.Second, "h", nil))}}
	url := serve(t, []exporter.Target{
		{Name: "fast", Namespace: "myapp", Reader: fast},
		{Name: "slow", Namespace: "myapp", Reader: slow},
	}, exporter.Options{MinInterval: time.Millisecond, ScrapeWait: 200 * time.Millisecond, ReadTimeout: 30 * time.Second})
	first := exportertest.Scrape(t, url+"/metrics")
	up := exportertest.Key("workq_up", "target", "slow", "namespace", "myapp")
	if first[up] != 1 {
		t.Fatalf("slow target up = %v before it was slow", first[up])
	}
	slow.block.Store(true)
	time.Sleep(5 * time.Millisecond)
	start := time.Now()
	got := exportertest.Scrape(t, url+"/metrics")
	if took := time.Since(start); took > time.Second {
		t.Fatalf("scrape took %v with a hanging target", took)
	}
	if got[up] != 0 {
		t.Errorf("hanging target: workq_up = %v, want 0", got[up])
	}
	if got[exportertest.Key("workq_up", "target", "fast", "namespace", "myapp")] != 1 {
		t.Error("the fast target is not up")
	}
	if d := exportertest.Diff(got.Target("slow").Only(exportertest.SnapshotNames()...), first.Target("slow").Only(exportertest.SnapshotNames()...), 0); d != "" {
		t.Errorf("the hanging target lost its last values:\n%s", d)
	}
	// The read in flight is shared: more scrapes start no second read.
	before := slow.calls.Load()
	exportertest.Scrape(t, url+"/metrics")
	if n := slow.calls.Load(); n != before {
		t.Errorf("a scrape started a second read while one hangs (%d -> %d)", before, n)
	}
}

func TestFailedReadKeepsLastValuesAndCounts(t *testing.T) {
	r := &fakeReader{script: []*model.Snapshot{snapshot(pool("p1", model.StatusAlive, time.Second, "h", nil)), nil}}
	url := serve(t, []exporter.Target{{Name: "a", Namespace: "myapp", Reader: r}}, exporter.Options{MinInterval: time.Millisecond})
	first := exportertest.Scrape(t, url+"/metrics")
	time.Sleep(5 * time.Millisecond)
	got := exportertest.Scrape(t, url+"/metrics")
	k := func(n string) string { return exportertest.Key(n, "target", "a", "namespace", "myapp") }
	if got[k("workq_up")] != 0 || got[k("workq_read_errors_total")] != 1 {
		t.Errorf("after a failed read: up %v, errors %v; want 0, 1", got[k("workq_up")], got[k("workq_read_errors_total")])
	}
	if d := exportertest.Diff(got.Only(exportertest.SnapshotNames()...), first.Only(exportertest.SnapshotNames()...), 0); d != "" {
		t.Errorf("last values lost:\n%s", d)
	}
}

func TestSeriesVanishWithTheirPools(t *testing.T) {
	r := &fakeReader{script: []*model.Snapshot{
		snapshot(pool("p1", model.StatusAlive, time.Second, "h", nil), pool("p2", model.StatusDead, time.Minute, "h", nil)),
		snapshot(pool("p1", model.StatusAlive, time.Second, "h", nil)),
	}}
	url := serve(t, []exporter.Target{{Name: "a", Namespace: "myapp", Reader: r}}, exporter.Options{MinInterval: time.Millisecond})
	inProgress := exportertest.Key("workq_pool_in_progress", "target", "a", "namespace", "myapp", "pool", "p2")
	if _, ok := exportertest.Scrape(t, url+"/metrics")[inProgress]; !ok {
		t.Fatal("no series of p2 while it is in the set")
	}
	time.Sleep(5 * time.Millisecond)
	got := exportertest.Scrape(t, url+"/metrics")
	for k := range got {
		if strings.Contains(k, `pool="p2"`) {
			t.Errorf("series of a pool that left the set: %s", k)
		}
	}
}

func TestPoolCap(t *testing.T) {
	snap := snapshot(
		pool("d1", model.StatusDead, time.Minute, "h", nil),
		pool("l1", model.StatusLate, 8*time.Second, "h", nil),
		pool("a1", model.StatusAlive, time.Second, "h", nil),
		pool("a2", model.StatusAlive, time.Second, "h", nil),
		pool("a3", model.StatusAlive, time.Second, "h", nil),
	)
	r := &fakeReader{script: []*model.Snapshot{snap}}
	url := serve(t, []exporter.Target{{Name: "a", Namespace: "myapp", Reader: r}}, exporter.Options{MaxPools: 2})
	got := exportertest.Scrape(t, url+"/metrics")
	k := func(n string, l ...string) string {
		return exportertest.Key(n, append([]string{"target", "a", "namespace", "myapp"}, l...)...)
	}
	if got[k("workq_pools_truncated")] != 3 {
		t.Errorf("workq_pools_truncated = %v, want 3", got[k("workq_pools_truncated")])
	}
	if got[k("workq_pools", "status", "alive")] != 3 {
		t.Errorf("workq_pools{alive} = %v: the status counts must count every pool", got[k("workq_pools", "status", "alive")])
	}
	pools := got.Only("workq_pool_in_progress")
	if len(pools) != 2 || pools[k("workq_pool_in_progress", "pool", "d1")] != 0 {
		t.Errorf("capped pool series: %v; want d1 and l1", pools)
	}
	if _, ok := pools[k("workq_pool_in_progress", "pool", "l1")]; !ok {
		t.Errorf("the late pool was cut before the alive ones: %v", pools)
	}
}

func TestLabelsFromRedisAreCleaned(t *testing.T) {
	snap := snapshot(pool("p1", model.StatusAlive, time.Second, "evil\x1b]0;title\x07host\xff", nil))
	snap.JobTypes = []model.JobType{{Name: "job\x1b[31m"}, {Name: `job\x1b[31m`}}
	r := &fakeReader{script: []*model.Snapshot{snap}}
	url := serve(t, []exporter.Target{{Name: "a", Namespace: "myapp", Reader: r}}, exporter.Options{})
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if strings.ContainsAny(string(body), "\x1b\x07") {
		t.Fatalf("control characters reached the exposition:\n%q", body)
	}
	got, err := exportertest.Parse(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("exposition does not parse: %v", err)
	}
	queued := got.Only("workq_job_queued")
	if len(queued) != 1 {
		t.Errorf("workq_job_queued series for two names that clean alike: %v, want one", queued)
	}
	if _, ok := queued[exportertest.Key("workq_job_queued", "target", "a", "namespace", "myapp", "job", `job\x1b[31m`)]; !ok {
		t.Errorf("the job label is not the escaped name: %v", queued)
	}
	if got[exportertest.Key("workq_up", "target", "a", "namespace", "myapp")] != 1 {
		t.Error("target not up")
	}
}

func TestOrphanScanAtItsOwnInterval(t *testing.T) {
	r := &fakeReader{script: []*model.Snapshot{snapshot()}}
	sc := &fakeScanner{orphans: []model.InProgressList{{Key: "k1", Length: 3}, {Key: "k2", Length: 4}}}
	url := serve(t, []exporter.Target{{Name: "a", Namespace: "myapp", Reader: r, Orphans: sc}},
		exporter.Options{MinInterval: time.Millisecond, ScanInterval: time.Hour})
	k := func(n string) string { return exportertest.Key(n, "target", "a", "namespace", "myapp") }
	var got exportertest.Series
	deadline := time.Now().Add(5 * time.Second)
	for {
		got = exportertest.Scrape(t, url+"/metrics")
		if _, ok := got[k("workq_orphaned_lists")]; ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got[k("workq_orphaned_lists")] != 2 || got[k("workq_orphaned_jobs")] != 7 {
		t.Errorf("orphans: lists %v, jobs %v; want 2, 7", got[k("workq_orphaned_lists")], got[k("workq_orphaned_jobs")])
	}
	for i := 0; i < 3; i++ {
		time.Sleep(5 * time.Millisecond)
		exportertest.Scrape(t, url+"/metrics")
	}
	if n := sc.calls.Load(); n != 1 {
		t.Errorf("%d scans within the scan interval, want 1", n)
	}
	if r.calls.Load() < 4 {
		t.Errorf("reads did not go on at their own interval (%d)", r.calls.Load())
	}
}

func TestHealthz(t *testing.T) {
	r := &fakeReader{script: []*model.Snapshot{nil}}
	url := serve(t, []exporter.Target{{Name: "a", Namespace: "myapp", Reader: r}}, exporter.Options{})
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "ok\n" {
		t.Fatalf("/healthz: %s %q", resp.Status, b)
	}
	if r.calls.Load() != 0 {
		t.Error("/healthz read Redis")
	}
}

func TestNewRefuses(t *testing.T) {
	r := &fakeReader{script: []*model.Snapshot{nil}}
	for name, ts := range map[string][]exporter.Target{
		"none":      nil,
		"no reader": {{Name: "a"}},
		"twice":     {{Name: "a", Reader: r}, {Name: "a", Reader: r}},
	} {
		if _, err := exporter.New(ts, exporter.Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
