// Package demo simulates a gocraft/work v0.5.1 deployment against a Redis
// server, for `workq-tui --demo`: live worker pools that heartbeat and move
// jobs queue -> in progress -> done, enqueuers that keep several job types
// moving, and the kinds of wreckage an operator meets in an incident (a dead
// pool with jobs in progress, a pool whose heartbeat vanished, an orphaned
// in-progress list, a job type whose lock drifted above its max_concurrency).
//
// The simulated pools send the same commands as gocraft/work (the same Lua
// scripts, pipelines and MULTI blocks, see scripts.go), so every state they
// leave is one a real deployment could be in, and the consistency rule of
// DESIGN.md holds between any two of their operations.
//
// A Sim is a discrete-event simulation: every event has a time, and nothing
// happens but through AdvanceTo, which runs the events due up to a given
// time in order. Under one seed and the same sequence of AdvanceTo calls the
// same commands are sent, so the end state is the same.
package demo

import (
	"container/heap"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/upstreamref"
	"github.com/workq-tui/workq-tui/redisq"
)

// History is how much simulated time Init plays before Options.Now: the
// scenario's pools start, work, and fail within it.
const History = 2 * time.Minute

// beatPeriod is gocraft/work's heartbeat period.
const beatPeriod = 5 * time.Second

// observationTTL is the expiry gocraft/work sets on worker observations.
const observationTTL = 24 * 60 * 60

// sleepBackoffs is gocraft/work's idle worker backoff, indexed by the number
// of fetches in a row that found nothing.
var sleepBackoffs = [...]time.Duration{0, 10 * time.Millisecond, 100 * time.Millisecond, time.Second, 5 * time.Second}

// Options configure a simulation.
type Options struct {
	// Namespace is the gocraft/work namespace ("work" when empty).
	Namespace string
	// Seed makes every random choice (IDs, arrivals, run times, failures).
	Seed int64
	// Now is the moment the scenario's history ends: Init writes the state
	// the deployment has at Now, its history starting History earlier.
	Now time.Time
	// SetTime, when set, is called with the simulated time before each event
	// runs, and at the end of each AdvanceTo (tests point miniredis's TIME at
	// simulated time with it).
	SetTime func(time.Time)
}

// Scenario names the actors of the simulated deployment.
type Scenario struct {
	// Live are the three pools that heartbeat and work.
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
	args           func(r *rand.Rand) map[string]any
}

// job is gocraft/work's Job as it is serialized.
type job struct {
	Name       string         `json:"name,omitempty"`
	ID         string         `json:"id"`
	EnqueuedAt int64          `json:"t"`
	Args       map[string]any `json:"args"`
	Unique     bool           `json:"unique,omitempty"`
	Fails      int64          `json:"fails,omitempty"`
	LastErr    string         `json:"err,omitempty"`
	FailedAt   int64          `json:"failed_at,omitempty"`
}

// maxFails is gocraft/work's default MaxFails.
const maxFails = 4

type pool struct {
	id        string
	host      string
	pid       int
	startedAt int64
	jobNames  []string // sorted
	workerIDs []string // sorted
	workers   []*worker
	fetch     *redis.Script
	fetchKeys []sample
	requeue   *redis.Script
	hung      bool // jobs it takes never finish
	crashed   bool // nothing of it runs any more
}

type sample struct {
	priority uint
	job      string
}

type worker struct {
	id     string
	pool   *pool
	misses int
	busy   bool // holds a job
	gen    int  // fetch events of an older generation are stale (see wake)
}

// Sim is one simulated deployment. It is not safe for concurrent use: one
// goroutine advances it.
type Sim struct {
	conn     redis.Conn
	keys     redisq.Keys
	rng      *rand.Rand
	setTime  func(time.Time)
	now      time.Time
	start    time.Time // Options.Now
	events   eventQueue
	seq      uint64
	specs    map[string]*jobSpec
	pools    []*pool
	scenario Scenario
	// enqueuerKnown is the enqueuer's cache of when it last added a job name
	// to known_jobs (gocraft/work's Enqueuer re-adds every 5 minutes).
	enqueuerKnown map[string]time.Time
	reapLocks     *redis.Script
	stats         Stats
}

// Stats count what the simulation did.
type Stats struct {
	Events   int64
	Enqueued int64
	Fetched  int64
	Finished int64
	Failed   int64
	// FinishedBy is the number of jobs each pool finished.
	FinishedBy map[string]int64
}

// Stats returns the counts so far.
func (s *Sim) Stats() Stats {
	st := s.stats
	st.FinishedBy = make(map[string]int64, len(s.stats.FinishedBy))
	for k, v := range s.stats.FinishedBy {
		st.FinishedBy[k] = v
	}
	return st
}

// New builds the simulation on conn. Nothing is sent until Init or
// AdvanceTo.
func New(conn redis.Conn, opts Options) *Sim {
	ns := opts.Namespace
	if ns == "" {
		ns = "work"
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	s := &Sim{
		conn:          conn,
		keys:          redisq.NewKeys(ns),
		rng:           rand.New(rand.NewSource(opts.Seed)),
		setTime:       opts.SetTime,
		start:         now,
		now:           now.Add(-History),
		specs:         map[string]*jobSpec{},
		enqueuerKnown: map[string]time.Time{},
		reapLocks:     redis.NewScript(-1, upstreamref.ReapStaleLocks),
		stats:         Stats{FinishedBy: map[string]int64{}},
	}
	for _, sp := range jobSpecs() {
		s.specs[sp.name] = sp
		s.scenario.JobNames = append(s.scenario.JobNames, sp.name)
	}
	sort.Strings(s.scenario.JobNames)
	s.build()
	return s
}

// Scenario names the simulated pools and job types.
func (s *Sim) Scenario() Scenario {
	sc := s.scenario
	sc.Live = append([]string(nil), sc.Live...)
	sc.JobNames = append([]string(nil), sc.JobNames...)
	return sc
}

// Now is the simulated time.
func (s *Sim) Now() time.Time { return s.now }

// Init plays the scenario's history up to Options.Now.
func (s *Sim) Init(ctx context.Context) error { return s.AdvanceTo(ctx, s.start) }

// AdvanceTo runs every event due at or before t, in time order, and leaves
// the simulated time at t (never moving it back).
func (s *Sim) AdvanceTo(ctx context.Context, t time.Time) error {
	for n := 0; len(s.events) > 0 && !s.events[0].at.After(t); n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		ev := heap.Pop(&s.events).(*event)
		s.stats.Events++
		if ev.at.After(s.now) {
			s.now = ev.at
		}
		if s.setTime != nil {
			s.setTime(s.now)
		}
		if err := ev.run(); err != nil {
			return fmt.Errorf("simulate at %s: %w", s.now.UTC().Format(time.RFC3339), err)
		}
	}
	if t.After(s.now) {
		s.now = t
	}
	if s.setTime != nil {
		s.setTime(s.now)
	}
	return nil
}

// Shift moves the simulated time and every pending event forward by d, as
// if the whole deployment had been paused for d: the live demo uses it to
// skip a gap (a suspended laptop) instead of replaying it.
func (s *Sim) Shift(d time.Duration) {
	if d <= 0 {
		return
	}
	s.now = s.now.Add(d)
	for _, ev := range s.events {
		ev.at = ev.at.Add(d) // the same shift for all keeps the heap order
	}
}

// at schedules fn at time t.
func (s *Sim) at(t time.Time, fn func() error) {
	s.seq++
	heap.Push(&s.events, &event{at: t, seq: s.seq, run: fn})
}

// after schedules fn d after the current simulated time.
func (s *Sim) after(d time.Duration, fn func() error) { s.at(s.now.Add(d), fn) }

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
	dead := newPool(poolDef{concurrency: 4, jobs: []string{"resize_image", "send_email"}, age: 5 * time.Hour})
	a := newPool(poolDef{concurrency: 5, jobs: []string{"send_email", "resize_image", "deliver_webhook", "sync_crm"}, age: 26 * time.Hour})
	b := newPool(poolDef{concurrency: 4, jobs: []string{"send_email", "charge_card", "deliver_webhook", "sync_crm"}, age: 3*time.Hour + 10*time.Minute})
	c := newPool(poolDef{concurrency: 4, jobs: []string{"resize_image", "charge_card", "export_report", "sync_crm", "deliver_webhook"}, age: 47 * time.Minute})
	s.scenario.Live = []string{a.id, b.id, c.id}
	s.scenario.Dead, s.scenario.Vanished, s.scenario.Orphan = dead.id, vanished.id, orphan.id
	s.scenario.OrphanJob, s.scenario.DriftJob = "sync_crm", "export_report"

	// The drifted lock: counted, never released (say, DECRs lost in a
	// failover), from before the history starts.
	s.at(h, func() error {
		sp := s.specs[s.scenario.DriftJob]
		_, err := s.conn.Do("INCRBY", s.keys.Lock(sp.name), sp.maxConcurrency+2)
		return err
	})
	for _, p := range s.pools {
		p := p
		s.at(h, func() error { return s.startPool(p) })
	}
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

// every runs fn at first and then every period.
func (s *Sim) every(first time.Time, period time.Duration, fn func() error) {
	var loop func() error
	loop = func() error {
		s.after(period, loop)
		return fn()
	}
	s.at(first, loop)
}

// arrival is an exponential inter-arrival time for a rate per minute.
func (s *Sim) arrival(perMinute float64) time.Duration {
	secs := s.rng.ExpFloat64() * 60 / perMinute
	return time.Duration(math.Round(secs*1000)) * time.Millisecond
}

// startPool is what WorkerPool.Start writes, then the pool's loops.
func (s *Sim) startPool(p *pool) error {
	// writeConcurrencyControlsToRedis: SET max_concurrency, 0 included.
	for _, j := range p.jobNames {
		if _, err := s.conn.Do("SET", s.keys.MaxConcurrency(j), s.specs[j].maxConcurrency); err != nil {
			return fmt.Errorf("pool %s: set max_concurrency: %w", p.id, err)
		}
	}
	// writeKnownJobsToRedis.
	args := redis.Args{s.keys.KnownJobs()}
	for _, j := range p.jobNames {
		args = args.Add(j)
	}
	if _, err := s.conn.Do("SADD", args...); err != nil {
		return fmt.Errorf("pool %s: sadd known_jobs: %w", p.id, err)
	}
	// Heartbeat right away and every 5 s, from an offset within the period.
	s.after(time.Duration(s.rng.Intn(int(beatPeriod/time.Millisecond)))*time.Millisecond, func() error { return s.heartbeatLoop(p) })
	for _, w := range p.workers {
		w := w
		s.fetchAfter(w, time.Duration(s.rng.Intn(1000))*time.Millisecond)
	}
	s.after(time.Duration(s.rng.Intn(1000))*time.Millisecond, func() error { return s.requeueLoop(p) })
	return nil
}

// heartbeatLoop is workerPoolHeartbeater.heartbeat every 5 s.
func (s *Sim) heartbeatLoop(p *pool) error {
	if p.crashed {
		return nil
	}
	s.after(beatPeriod, func() error { return s.heartbeatLoop(p) })
	if err := s.conn.Send("SADD", s.keys.WorkerPools(), p.id); err != nil {
		return err
	}
	if err := s.conn.Send("HMSET", s.keys.Heartbeat(p.id),
		"heartbeat_at", s.now.Unix(),
		"started_at", p.startedAt,
		"job_names", strings.Join(p.jobNames, ","),
		"concurrency", len(p.workers),
		"worker_ids", strings.Join(p.workerIDs, ","),
		"host", p.host,
		"pid", p.pid,
	); err != nil {
		return err
	}
	if _, err := s.conn.Do(""); err != nil {
		return fmt.Errorf("pool %s: heartbeat: %w", p.id, err)
	}
	return nil
}

func (s *Sim) deleteHeartbeat(p *pool) error {
	_, err := s.conn.Do("DEL", s.keys.Heartbeat(p.id))
	return err
}

// requeueLoop is the pool's retry and scheduled requeuers, every second.
func (s *Sim) requeueLoop(p *pool) error {
	if p.crashed {
		return nil
	}
	s.after(time.Second, func() error { return s.requeueLoop(p) })
	// The script on a zset with nothing due changes nothing; ask first, in
	// one round trip without Lua, to keep the simulation cheap.
	zsets := []string{s.keys.Retry(), s.keys.Scheduled()}
	for _, z := range zsets {
		if err := s.conn.Send("ZCOUNT", z, "-inf", s.now.Unix()); err != nil {
			return err
		}
	}
	due, err := redis.Int64s(s.conn.Do(""))
	if err != nil {
		return fmt.Errorf("pool %s: requeue: %w", p.id, err)
	}
	for i, zset := range zsets {
		if due[i] == 0 {
			continue
		}
		args := redis.Args{zset, s.keys.Dead()}
		for _, j := range p.jobNames {
			args = args.Add(s.keys.Queue(j))
		}
		args = args.Add(s.keys.JobsPrefix(), s.now.Unix())
		for {
			res, err := redis.String(p.requeue.Do(s.conn, args...))
			if errors.Is(err, redis.ErrNil) {
				break
			}
			if err != nil {
				return fmt.Errorf("pool %s: requeue from %s: %w", p.id, zset, err)
			}
			if res != "ok" && res != "dead" {
				break
			}
		}
	}
	return nil
}

// enqueueLoop enqueues one job of a type and schedules the next arrival.
func (s *Sim) enqueueLoop(sp *jobSpec) error {
	s.after(s.arrival(sp.perMinute), func() error { return s.enqueueLoop(sp) })
	return s.enqueue(sp)
}

func (s *Sim) burst(name string, n int) error {
	for i := 0; i < n; i++ {
		if err := s.enqueue(s.specs[name]); err != nil {
			return err
		}
	}
	return nil
}

// enqueue is Enqueuer.Enqueue: LPUSH the job JSON, and SADD known_jobs when
// the enqueuer has not done so for 5 minutes.
func (s *Sim) enqueue(sp *jobSpec) error {
	j := job{Name: sp.name, ID: s.ident(), EnqueuedAt: s.now.Unix(), Args: sp.args(s.rng)}
	raw, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode %s job: %w", sp.name, err)
	}
	if _, err := s.conn.Do("LPUSH", s.keys.Queue(sp.name), raw); err != nil {
		return fmt.Errorf("enqueue %s: %w", sp.name, err)
	}
	s.stats.Enqueued++
	if t, ok := s.enqueuerKnown[sp.name]; !ok || !s.now.Before(t) {
		if _, err := s.conn.Do("SADD", s.keys.KnownJobs(), sp.name); err != nil {
			return fmt.Errorf("enqueue %s: sadd known_jobs: %w", sp.name, err)
		}
		s.enqueuerKnown[sp.name] = s.now.Add(300 * time.Second)
	}
	return nil
}

// sampleOrder is gocraft/work's prioritySampler.sample: a random order in
// which higher priorities tend to come first.
func (s *Sim) sampleOrder(p *pool) []sample {
	out := p.fetchKeys
	var sum uint
	for _, x := range out {
		sum += x.priority
	}
	last := 0
	for remaining := len(out); remaining > 1; remaining-- {
		rn := uint(s.rng.Uint32()) % sum
		prev := uint(0)
		for i := len(out) - 1; i >= last; i-- {
			x := out[i]
			if rn < x.priority+prev {
				out[i], out[last] = out[last], out[i]
				sum -= x.priority
				break
			}
			prev += x.priority
		}
		last++
	}
	return out
}

// fetch is one worker.fetchJob: the fetch script over the pool's job types
// in sampled order.
func (s *Sim) fetch(w *worker, gen int) error {
	p := w.pool
	if p.crashed || gen != w.gen {
		return nil
	}
	// The script finds nothing when every queue of the pool is empty (an
	// empty list does not exist); ask that first without Lua, which keeps an
	// idle pool's polling cheap on miniredis. It changes nothing in Redis.
	queues := redis.Args{}
	for _, j := range p.jobNames {
		queues = queues.Add(s.keys.Queue(j))
	}
	n, err := redis.Int(s.conn.Do("EXISTS", queues...))
	if err != nil {
		return s.fetchFailed(w, err)
	}
	if n == 0 {
		return s.miss(w)
	}
	args := redis.Args{}
	for _, x := range s.sampleOrder(p) {
		args = args.Add(s.keys.Queue(x.job), s.keys.InProgress(x.job, p.id), s.keys.Paused(x.job),
			s.keys.Lock(x.job), s.keys.LockInfo(x.job), s.keys.MaxConcurrency(x.job))
	}
	args = args.Add(p.id)
	values, err := redis.Values(p.fetch.Do(s.conn, args...))
	if errors.Is(err, redis.ErrNil) {
		return s.miss(w)
	}
	if err != nil {
		return s.fetchFailed(w, err)
	}
	var raw, inProg string
	if _, err := redis.Scan(values, &raw, new(string), &inProg); err != nil {
		return s.fetchFailed(w, err)
	}
	w.misses = 0
	w.busy = true
	s.stats.Fetched++
	var j job
	if err := json.Unmarshal([]byte(raw), &j); err != nil || s.specs[j.Name] == nil {
		// gocraft/work drops a job it cannot decode and leaves it in the
		// in-progress list (and in lock); so do we.
		return s.fetchFailed(w, fmt.Errorf("undecodable job %.60q: %v", raw, err))
	}
	sp := s.specs[j.Name]
	run := sp.minRun + time.Duration(s.rng.Int63n(int64(sp.maxRun-sp.minRun)+1))
	if !p.hung { // a hung pool's jobs never end; neither do its workers
		s.after(run, func() error { return s.finish(w, raw, inProg, &j) })
	}
	return s.observeStarted(w, &j)
}

// fetchAfter schedules the worker's next fetch.
func (s *Sim) fetchAfter(w *worker, d time.Duration) {
	gen := w.gen
	s.after(d, func() error { return s.fetch(w, gen) })
}

// wake makes the idle workers of a pool fetch now instead of at the end of
// their backoff, as if their timers had just fired. The scenario uses it so
// that a pool that hangs during a burst is sure to hold jobs, whatever the
// seed: its workers poll before anyone else's.
func (s *Sim) wake(p *pool) {
	for _, w := range p.workers {
		if !w.busy {
			w.gen++
			s.fetchAfter(w, 0)
		}
	}
}

// fetchFailed is gocraft/work's answer to a fetch error: log it, try again
// in 10 ms.
func (s *Sim) fetchFailed(w *worker, err error) error {
	s.fetchAfter(w, 10*time.Millisecond)
	return fmt.Errorf("pool %s: fetch: %w", w.pool.id, err)
}

// miss schedules the next fetch after gocraft/work's idle backoff.
func (s *Sim) miss(w *worker) error {
	w.misses++
	s.fetchAfter(w, sleepBackoffs[min(w.misses, len(sleepBackoffs)-1)])
	return nil
}

// observeStarted writes the worker observation hash (observer.writeStatus).
func (s *Sim) observeStarted(w *worker, j *job) error {
	key := s.keys.Prefix() + "worker:" + w.id
	argsJSON := []byte("")
	if len(j.Args) > 0 {
		var err error
		if argsJSON, err = json.Marshal(j.Args); err != nil {
			return fmt.Errorf("encode args: %w", err)
		}
	}
	if err := s.conn.Send("HMSET", key, "job_name", j.Name, "job_id", j.ID, "started_at", s.now.Unix(), "args", argsJSON); err != nil {
		return err
	}
	if err := s.conn.Send("EXPIRE", key, observationTTL); err != nil {
		return err
	}
	if _, err := s.conn.Do(""); err != nil {
		return fmt.Errorf("worker %s: observe: %w", w.id, err)
	}
	return nil
}

// finish is worker.removeJobFromInProgress, with the job's fate: done,
// retried later, or dead after maxFails failures.
func (s *Sim) finish(w *worker, raw, inProg string, j *job) error {
	p := w.pool
	if p.crashed {
		return nil
	}
	sp := s.specs[j.Name]
	var fate []any
	if sp.failRate > 0 && s.rng.Float64() < sp.failRate {
		j.Fails++
		j.LastErr = sp.errs[s.rng.Intn(len(sp.errs))]
		j.FailedAt = s.now.Unix()
		b, err := json.Marshal(j)
		if err != nil {
			return fmt.Errorf("encode failed job: %w", err)
		}
		if j.Fails < maxFails {
			backoff := j.Fails*j.Fails*j.Fails*j.Fails + 15 + s.rng.Int63n(30)*(j.Fails+1)
			fate = []any{"ZADD", s.keys.Retry(), s.now.Unix() + backoff, b}
		} else {
			fate = []any{"ZADD", s.keys.Dead(), s.now.Unix(), b}
		}
	}
	cmds := [][]any{
		{"MULTI"},
		{"LREM", inProg, 1, raw},
		{"DECR", s.keys.Lock(j.Name)},
		{"HINCRBY", s.keys.LockInfo(j.Name), p.id, -1},
	}
	if fate != nil {
		cmds = append(cmds, fate)
	}
	for _, c := range cmds {
		if err := s.conn.Send(c[0].(string), c[1:]...); err != nil {
			return err
		}
	}
	// The worker moves on whatever happens, as gocraft/work's does.
	w.busy = false
	s.fetchAfter(w, 0)
	if _, err := s.conn.Do("EXEC"); err != nil {
		return fmt.Errorf("pool %s: remove job from in progress: %w", p.id, err)
	}
	s.stats.Finished++
	s.stats.FinishedBy[p.id]++
	if fate != nil {
		s.stats.Failed++
	}
	if _, err := s.conn.Do("DEL", s.keys.Prefix()+"worker:"+w.id); err != nil {
		return fmt.Errorf("worker %s: observe done: %w", w.id, err)
	}
	return nil
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

// event is one scheduled step of the simulation.
type event struct {
	at  time.Time
	seq uint64
	run func() error
}

// eventQueue orders events by time, then by scheduling order.
type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	n := len(old)
	ev := old[n-1]
	*q = old[:n-1]
	return ev
}
