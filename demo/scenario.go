// The scenario of the simulated deployment: the application's job types and
// their arguments, the pools with their names and hosts, and the timeline
// that leaves the wreckage of an incident behind (a dead pool, a vanished
// heartbeat, an orphaned in-progress list left by upstream's reaper, a
// drifted lock, and the cases of cases.go: a paused type, a type only the
// dead pool served, a type saturated by long-running jobs).

package demo

import (
	"encoding/hex"
	"fmt"
	"math/rand"
	"sort"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Scenario names the actors of the simulated deployment.
type Scenario struct {
	// Live are the four pools that heartbeat: three work, the fourth's
	// workers are stuck (incident.go).
	Live []string
	// Dead is a pool that died with jobs in progress: its heartbeat is stale
	// and it is still in the set.
	Dead string
	// Vanished is a pool whose heartbeat hash is gone while its ID is still
	// in the set; it has jobs in progress too.
	Vanished string
	// Orphan is a pool no longer in the set whose in-progress list of
	// OrphanJob stayed behind (upstream's reaper removed it from the set
	// without moving its jobs).
	Orphan    string
	OrphanJob string
	// DriftJob is a job type whose lock is its max_concurrency + 2 with
	// nothing in progress, so no pool takes its jobs and its queue grows.
	DriftJob string
	// JobNames are every job type, sorted.
	JobNames []string
}

// jobSpec is one job type of the simulated application.
type jobSpec struct {
	name           string
	maxConcurrency int64
	priority       uint
	perMinute      float64 // mean arrival rate
	minRun, maxRun time.Duration
	failRate       float64
	errs           []string
	// maxFails is the type's MaxFails (0: gocraft/work's default).
	maxFails int64
	args     func(r *rand.Rand) map[string]any
}

// jobSpecs is the simulated application's job types.
func jobSpecs() []*jobSpec {
	return []*jobSpec{
		{name: "send_email", priority: 1, perMinute: 40, minRun: 300 * time.Millisecond, maxRun: 2500 * time.Millisecond, failRate: 0.03,
			errs: []string{"smtp: 421 4.7.0 try again later", "dial tcp 10.0.4.17:587: i/o timeout"},
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"to": email(r), "template": pick(r, "welcome", "password_reset", "receipt", "weekly_digest", "invoice_ready")}
			}},
		{name: "resize_image", priority: 1, perMinute: 20, minRun: time.Second, maxRun: 6 * time.Second, failRate: 0.01,
			errs: []string{"decode: image: unknown format", "s3: RequestTimeout: request timed out"},
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"image_id": 100000 + r.Intn(900000), "width": pick(r, 320, 640, 1280)}
			}},
		{name: "charge_card", maxConcurrency: 3, priority: 1, perMinute: 27, minRun: 2 * time.Second, maxRun: 9 * time.Second, failRate: 0.02,
			errs: []string{"stripe: card_declined", "stripe: rate_limit: too many requests"},
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"order_id": fmt.Sprintf("ord_%06d", r.Intn(1000000)), "amount_cents": 500 + r.Intn(20000), "currency": "usd"}
			}},
		{name: "sync_crm", priority: 1, perMinute: 6, minRun: 3 * time.Second, maxRun: 12 * time.Second, failRate: 0.02,
			errs: []string{"crm: 502 bad gateway"},
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"account_id": 1000 + r.Intn(9000)}
			}},
		{name: "deliver_webhook", priority: 1, perMinute: 30, minRun: 200 * time.Millisecond, maxRun: 1500 * time.Millisecond, failRate: 0.08,
			errs: []string{"POST https://hooks.example.com/in: 503 Service Unavailable", "POST https://hooks.example.org/wh: context deadline exceeded"},
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"endpoint_id": 1 + r.Intn(400), "event": pick(r, "invoice.paid", "order.created", "user.signed_up", "order.shipped")}
			}},
		{name: PausedJob, priority: 1, perMinute: 2, minRun: 2 * time.Second, maxRun: 8 * time.Second,
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"index": pick(r, "products", "users", "orders"), "shard": r.Intn(16)}
			}},
		{name: UnservedJob, priority: 1, perMinute: 3, minRun: time.Second, maxRun: 4 * time.Second,
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"batch_id": fmt.Sprintf("led_%05d", r.Intn(100000)), "source": pick(r, "bank_feed", "csv_upload")}
			}},
		{name: SaturatedJob, maxConcurrency: 2, priority: 1, perMinute: 1, minRun: 8 * time.Minute, maxRun: 20 * time.Minute,
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"video_id": 10000 + r.Intn(90000), "preset": pick(r, "720p", "1080p", "4k")}
			}},
		{name: "export_report", maxConcurrency: 2, priority: 1, perMinute: 1, minRun: 10 * time.Second, maxRun: 30 * time.Second,
			args: func(r *rand.Rand) map[string]any {
				return map[string]any{"report": pick(r, "monthly_sales", "churn", "tax_summary"), "account_id": 1000 + r.Intn(9000), "format": "csv"}
			}},
	}
}

var firstNames = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter"}
var domains = []string{"example.com", "example.org", "example.net", "mail.example.com"}

func email(r *rand.Rand) string {
	return fmt.Sprintf("%s.%d@%s", firstNames[r.Intn(len(firstNames))], r.Intn(1000), domains[r.Intn(len(domains))])
}

func pick[T any](r *rand.Rand, v ...T) T { return v[r.Intn(len(v))] }

// ident is gocraft/work's makeIdentifier (12 random bytes in hex) from the
// seeded source.
func (s *Sim) ident() string {
	b := make([]byte, 12)
	for i := range b {
		b[i] = byte(s.rng.Intn(256))
	}
	return hex.EncodeToString(b)
}

func (s *Sim) host() string {
	const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alnum[s.rng.Intn(len(alnum))]
	}
	return fmt.Sprintf("jobs-%s-%s", s.ident()[:9], b)
}

// poolDef is a pool of the scenario.
type poolDef struct {
	concurrency int
	jobs        []string
	age         time.Duration // how long before the history starts it started
}

// build creates the pools and schedules the scenario.
func (s *Sim) build() {
	h := s.now // the history's start
	newPool := func(d poolDef) *pool {
		p := &pool{id: s.ident(), host: s.host(), pid: 1 + s.rng.Intn(60000), startedAt: h.Add(-d.age).Unix()}
		p.jobNames = append([]string(nil), d.jobs...)
		sort.Strings(p.jobNames)
		for i := 0; i < d.concurrency; i++ {
			w := &worker{id: s.ident(), pool: p}
			p.workers = append(p.workers, w)
			p.workerIDs = append(p.workerIDs, w.id)
		}
		sort.Strings(p.workerIDs)
		for _, j := range p.jobNames {
			p.fetchKeys = append(p.fetchKeys, sample{priority: s.specs[j].priority, job: j})
		}
		p.fetch = redis.NewScript(len(p.jobNames)*fetchKeysPerJobType, luaFetchJob)
		p.requeue = redis.NewScript(len(p.jobNames)+2, luaZremLpush)
		s.pools = append(s.pools, p)
		return p
	}
	orphan := newPool(poolDef{concurrency: 2, jobs: []string{"sync_crm"}, age: 49 * time.Hour})
	vanished := newPool(poolDef{concurrency: 3, jobs: []string{"resize_image", "sync_crm"}, age: 9 * time.Hour})
	dead := newPool(poolDef{concurrency: 4, jobs: []string{"resize_image", "send_email", UnservedJob}, age: 5 * time.Hour})
	a := newPool(poolDef{concurrency: 5, jobs: []string{"send_email", "resize_image", "deliver_webhook", "sync_crm", SaturatedJob}, age: 26 * time.Hour})
	// b and c are a deploy: they started on two hosts a few minutes before
	// the card gateway's outage (OutageAgo).
	b := newPool(poolDef{concurrency: 4, jobs: []string{"send_email", "charge_card", "deliver_webhook", "sync_crm", SaturatedJob}, age: DeployAgo - History + 40*time.Second})
	c := newPool(poolDef{concurrency: 4, jobs: []string{"resize_image", "charge_card", "export_report", "sync_crm", "deliver_webhook", PausedJob}, age: DeployAgo - History})
	stuck, startStuck := s.buildIncident(h, newPool)
	s.scenario.Live = []string{a.id, b.id, c.id, stuck.id}
	s.scenario.Dead, s.scenario.Vanished, s.scenario.Orphan = dead.id, vanished.id, orphan.id
	s.scenario.OrphanJob, s.scenario.DriftJob = "sync_crm", "export_report"

	// The drifted lock: counted, never released (say, DECRs lost in a
	// failover), from before the history starts.
	s.at(h, func() error {
		sp := s.specs[s.scenario.DriftJob]
		_, err := s.conn.Do("INCRBY", s.keys.Lock(sp.name), sp.maxConcurrency+2)
		return err
	})
	s.at(h, s.pauseAndBacklog)
	for _, p := range s.pools {
		p := p
		s.at(h, func() error { return s.startPool(p) })
	}
	// After the pools' starts and before their workers' first fetches.
	s.at(h, func() error { return s.startLongJob(a.workers[0], LongJobAges[0], 31*time.Minute, "frame 41200/96000") })
	s.at(h, func() error { return s.startLongJob(b.workers[0], LongJobAges[1], 44*time.Minute, "frame 18050/72000") })
	startStuck()
	for _, name := range s.scenario.JobNames {
		sp := s.specs[name]
		s.at(h.Add(s.arrival(sp.perMinute)), func() error { return s.enqueueLoop(sp) })
	}
	// Regular bursts: a newsletter, a nightly CRM sync catching up.
	s.every(h.Add(100*time.Second), 150*time.Second, func() error { return s.burst("send_email", 20) })
	s.every(h.Add(200*time.Second), 4*time.Minute, func() error { return s.burst("sync_crm", 8) })

	// The orphan: the pool hangs, crashes, its heartbeat hash vanishes, and
	// a live pool's upstream reaper reaps it the upstream way: without a
	// heartbeat it moves no jobs, removes the pool from the set and releases
	// the locks of its own job types.
	s.at(h.Add(2*time.Second), func() error {
		orphan.hung = true
		defer s.wake(orphan)
		return s.burst("sync_crm", 12)
	})
	s.at(h.Add(15*time.Second), func() error { orphan.crashed = true; return nil })
	s.at(h.Add(20*time.Second), func() error { return s.deleteHeartbeat(orphan) })
	s.at(h.Add(25*time.Second), func() error { return s.upstreamReapNoHeartbeat(a, orphan.id) })

	// The vanished heartbeat: the pool hangs on a slow dependency, is killed,
	// and its heartbeat hash is evicted (or deleted by hand) later.
	s.at(h.Add(28*time.Second), func() error {
		vanished.hung = true
		defer s.wake(vanished)
		if err := s.burst("resize_image", 10); err != nil {
			return err
		}
		return s.burst("sync_crm", 10)
	})
	s.at(h.Add(50*time.Second), func() error { vanished.crashed = true; return nil })
	s.at(h.Add(60*time.Second), func() error { return s.deleteHeartbeat(vanished) })

	// The dead pool: hangs during a bulk upload, then dies 40 s before now.
	s.at(s.start.Add(-70*time.Second), func() error {
		dead.hung = true
		defer s.wake(dead)
		if err := s.burst("resize_image", 20); err != nil {
			return err
		}
		return s.burst("send_email", 15)
	})
	s.at(s.start.Add(-40*time.Second), func() error { dead.crashed = true; return nil })
}

// upstreamReapNoHeartbeat is what gocraft/work's dead pool reaper, running
// in pool reaper, does to a dead pool whose heartbeat is missing: no jobs
// moved; SREM the pool, then release its locks for the reaper's own job
// types.
func (s *Sim) upstreamReapNoHeartbeat(reaper *pool, deadID string) error {
	if _, err := s.conn.Do("SREM", s.keys.WorkerPools(), deadID); err != nil {
		return fmt.Errorf("upstream reap %s: %w", deadID, err)
	}
	args := redis.Args{len(reaper.jobNames) * 2}
	for _, j := range reaper.jobNames {
		args = args.Add(s.keys.Lock(j), s.keys.LockInfo(j))
	}
	args = args.Add(deadID)
	if _, err := s.reapLocks.Do(s.conn, args...); err != nil {
		return fmt.Errorf("upstream reap %s: clean stale locks: %w", deadID, err)
	}
	return nil
}
