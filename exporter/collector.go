package exporter

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// descs are the exported metrics. Every one has the labels target and
// namespace first.
type descs struct {
	up, pools, heartbeatAge, poolInProgress, poolsTruncated              *prometheus.Desc
	queued, latency, jobInProgress, lock, lockInfoTotal, maxConc, paused *prometheus.Desc
	drift, orphanedLists, orphanedJobs, readDuration, readErrors         *prometheus.Desc
	setJobs, busyWorkers, longRunning, namespaceEmpty, variant           *prometheus.Desc
	health                                                               healthDescs
	jobHealth                                                            jobHealthDescs
}

func newDescs() descs {
	d := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append([]string{"target", "namespace"}, extra...), nil)
	}
	return descs{
		health:         newHealthDescs(d),
		jobHealth:      newJobHealthDescs(d),
		up:             d("workq_up", "1 when the last read of the target succeeded and none is overdue, else 0."),
		pools:          d("workq_pools", "Worker pools in the namespace's pool set, by heartbeat status.", "status"),
		heartbeatAge:   d("workq_pool_heartbeat_age_seconds", "Redis time minus the pool's last heartbeat.", "pool", "host"),
		poolInProgress: d("workq_pool_in_progress", "Jobs in the pool's in-progress lists, over all job types.", "pool"),
		poolsTruncated: d("workq_pools_truncated", "Pools left out of the pool-labelled series by the pool cap (0 when none)."),
		queued:         d("workq_job_queued", "Jobs in the job type's queue.", "job"),
		latency:        d("workq_job_latency_seconds", "Redis time minus the enqueue time of the oldest queued job (0 when the queue is empty).", "job"),
		jobInProgress:  d("workq_job_in_progress", "Jobs of the type in the in-progress lists of the pools in the pool set.", "job"),
		lock:           d("workq_job_lock", "The job type's lock counter.", "job"),
		lockInfoTotal:  d("workq_job_lock_info_held", "Sum of the job type's lock_info hash over pools.", "job"),
		maxConc:        d("workq_job_max_concurrency", "The job type's concurrency cap (0 = none).", "job"),
		paused:         d("workq_job_paused", "1 when the job type is paused.", "job"),
		drift:          d("workq_job_drift", "1 when lock, lock_info and the in-progress lists of the job type disagree.", "job"),
		setJobs:        d("workq_set_jobs", "Jobs in the namespace's retry, scheduled or dead sorted set.", "set"),
		busyWorkers:    d("workq_busy_workers", "Workers of the namespace's pools with a job (an observation hash), as snapshot lists them."),
		longRunning:    d("workq_long_running_jobs", "Busy workers whose job has run longer than the exporter's long-after."),
		variant:        d("workq_variant", "1, labelled with which build wrote the namespace as its keys and jobs tell (gocraft, v0.5.1, master-or-gojek, harbor, other-layout, empty); absent when the read did not tell.", "name"),
		namespaceEmpty: d("workq_namespace_empty", "1 when the namespace holds no gocraft/work key at all (no pools, job types, set jobs or orphans): most often a wrong namespace."),
		orphanedLists:  d("workq_orphaned_lists", "Non-empty in-progress lists of pools not in the pool set, from the last orphan scan."),
		orphanedJobs:   d("workq_orphaned_jobs", "Jobs in those lists."),
		readDuration:   d("workq_read_duration_seconds", "How long the last read of the target took."),
		readErrors:     prometheus.NewDesc("workq_read_errors_total", "Reads of the target that failed.", []string{"target", "namespace"}, nil),
	}
}

// collector is the exporter as a prometheus.Collector. It builds every
// series from the targets' last reads on each scrape, so the series of a
// pool or job type that is gone vanish with it.
type collector struct{ e *Exporter }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	d := c.e.descs
	for _, x := range []*prometheus.Desc{d.up, d.pools, d.heartbeatAge, d.poolInProgress, d.poolsTruncated,
		d.queued, d.latency, d.jobInProgress, d.lock, d.lockInfoTotal, d.maxConc, d.paused, d.drift,
		d.setJobs, d.busyWorkers, d.longRunning, d.namespaceEmpty, d.variant, d.orphanedLists, d.orphanedJobs, d.readDuration, d.readErrors} {
		ch <- x
	}
	for _, x := range d.health.all() {
		ch <- x
	}
	for _, x := range d.jobHealth.all() {
		ch <- x
	}
}

// Collect refreshes every target at once, each waiting at most ScrapeWait
// for its read, and sends their series.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	wait := make(chan struct{})
	timer := time.AfterFunc(c.e.opts.ScrapeWait, func() { close(wait) })
	defer timer.Stop()
	views := make([]view, len(c.e.targets))
	var wg sync.WaitGroup
	for i, t := range c.e.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			views[i] = c.e.refresh(t, wait)
		}()
	}
	wg.Wait()
	for i, t := range c.e.targets {
		c.e.emit(ch, t.Name, t.Namespace, views[i])
	}
}

// series sends metrics of one target, dropping a second series with the
// same labels (two names from Redis that clean to the same label value).
type series struct {
	ch   chan<- prometheus.Metric
	base []string
	seen map[string]bool
}

func (s *series) send(d *prometheus.Desc, t prometheus.ValueType, v float64, extra ...string) {
	labels := append(append([]string(nil), s.base...), extra...)
	if len(extra) > 0 {
		id := d.String() + "\x00" + strings.Join(extra, "\x00")
		if s.seen[id] {
			return
		}
		s.seen[id] = true
	}
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	s.ch <- m
}

// label makes text from Redis fit to show: no terminal control sequences,
// valid UTF-8.
func label(s string) string { return strings.ToValidUTF8(textsafe.Clean(s), "\uFFFD") }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (e *Exporter) emit(ch chan<- prometheus.Metric, name, namespace string, v view) {
	d := e.descs
	s := &series{ch: ch, base: []string{name, namespace}, seen: map[string]bool{}}
	gauge := prometheus.GaugeValue
	s.send(d.up, gauge, boolValue(v.up))
	s.send(d.readErrors, prometheus.CounterValue, float64(v.readErrors))
	if v.readDuration > 0 {
		s.send(d.readDuration, gauge, v.readDuration.Seconds())
	}
	if v.scanned {
		var jobs int64
		for _, o := range v.orphans {
			jobs += o.Length
		}
		s.send(d.orphanedLists, gauge, float64(len(v.orphans)))
		s.send(d.orphanedJobs, gauge, float64(jobs))
	}
	snap := v.snap
	if snap == nil {
		return
	}
	counts := map[model.Status]int{}
	for _, p := range snap.Pools {
		counts[p.Status]++
	}
	for _, st := range []model.Status{model.StatusAlive, model.StatusLate, model.StatusDead} {
		s.send(d.pools, gauge, float64(counts[st]), string(st))
	}
	// The snapshot lists dead pools first, then late, then alive, so the
	// cap keeps the pools an operator needs to see.
	pools := snap.Pools
	truncated := 0
	if len(pools) > e.opts.MaxPools {
		truncated = len(pools) - e.opts.MaxPools
		pools = pools[:e.opts.MaxPools]
	}
	s.send(d.poolsTruncated, gauge, float64(truncated))
	for _, set := range []model.SetName{model.SetRetry, model.SetScheduled, model.SetDead} {
		s.send(d.setJobs, gauge, float64(snap.Sets.Of(set)), string(set))
	}
	busy, long := 0, 0
	for i := range snap.Workers {
		w := &snap.Workers[i]
		if w.Busy {
			busy++
		}
		if w.LongRunning(e.opts.LongAfter) {
			long++
		}
	}
	// The snapshot's orphans are the orphan scan's (v.orphans).
	s.send(d.namespaceEmpty, gauge, boolValue(model.EmptyNamespace(snap) && len(v.orphans) == 0))
	if snap.Variant != nil {
		s.send(d.variant, gauge, 1, label(snap.Variant.Name))
	}
	s.send(d.busyWorkers, gauge, float64(busy))
	s.send(d.longRunning, gauge, float64(long))
	d.health.emit(s, snap)
	d.jobHealth.emit(s, snap)
	for _, p := range pools {
		id := label(p.ID)
		if p.HeartbeatAge != nil {
			host := ""
			if p.Heartbeat != nil {
				host = label(p.Heartbeat.Host)
			}
			s.send(d.heartbeatAge, gauge, p.HeartbeatAge.Seconds(), id, host)
		}
		s.send(d.poolInProgress, gauge, float64(p.InProgressTotal()), id)
	}
	for _, j := range snap.JobTypes {
		job := label(j.Name)
		s.send(d.queued, gauge, float64(j.Queued), job)
		switch {
		case j.Latency != nil:
			s.send(d.latency, gauge, j.Latency.Seconds(), job)
		case j.Queued == 0:
			s.send(d.latency, gauge, 0, job)
		}
		s.send(d.jobInProgress, gauge, float64(j.InProgress), job)
		s.send(d.lock, gauge, float64(j.Lock), job)
		s.send(d.lockInfoTotal, gauge, float64(j.LockInfoTotal), job)
		s.send(d.maxConc, gauge, float64(j.MaxConcurrency), job)
		s.send(d.paused, gauge, boolValue(j.Paused), job)
		s.send(d.drift, gauge, boolValue(j.Drift), job)
	}
}
