// Package exporter serves the state of gocraft/work namespaces as Prometheus
// metrics (/metrics) with a health check (/healthz). It reads through
// interfaces that only read, and each target's reads are paced: at most one
// per minimum interval however many scrapes arrive, concurrent scrapes share
// one read, and a slow or unreachable target answers with its last values and
// workq_up 0 without holding up the others.
package exporter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/workq-tui/workq-tui/model"
)

// Reader reads one snapshot of a namespace. It must not write.
type Reader interface {
	Read(ctx context.Context) (*model.Snapshot, error)
}

// OrphanScanner walks the keyspace for in-progress lists of pools that are
// not in the namespace's pool set. It must not write.
type OrphanScanner interface {
	ScanOrphans(ctx context.Context) ([]model.InProgressList, error)
}

// Target is one namespace to export.
type Target struct {
	// Name is the value of the target label; Namespace of the namespace
	// label.
	Name      string
	Namespace string
	Reader    Reader
	// Orphans is nil when the target is not scanned for orphans.
	Orphans OrphanScanner
}

// Defaults of Options.
const (
	DefaultMinInterval  = 15 * time.Second
	DefaultScanInterval = 5 * time.Minute
	DefaultReadTimeout  = 10 * time.Second
	DefaultScrapeWait   = 800 * time.Millisecond
	DefaultMaxPools     = 1000
)

// Options tune the exporter; zero values take the defaults.
type Options struct {
	// MinInterval is the least time between the starts of two reads of a
	// target.
	MinInterval time.Duration
	// ScanInterval is the least time between the starts of two orphan scans
	// of a target.
	ScanInterval time.Duration
	// ReadTimeout bounds one read of a target; ScanTimeout one orphan scan
	// (default: ScanInterval).
	ReadTimeout time.Duration
	ScanTimeout time.Duration
	// ScrapeWait is how long a scrape waits for a read it started (or found
	// running) before it answers with the last values and workq_up 0. Keep
	// it below the scrape timeout.
	ScrapeWait time.Duration
	// MaxPools caps the pools given pool-labelled series per target; the
	// rest are counted in workq_pools_truncated. Dead pools come first,
	// then late, then alive.
	MaxPools int
	// LongAfter is how long a job may run before its worker counts in
	// workq_long_running_jobs, as snapshot's --long-after.
	LongAfter time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.MinInterval <= 0 {
		o.MinInterval = DefaultMinInterval
	}
	if o.ScanInterval <= 0 {
		o.ScanInterval = DefaultScanInterval
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.ScanTimeout <= 0 {
		o.ScanTimeout = o.ScanInterval
	}
	if o.ScrapeWait <= 0 {
		o.ScrapeWait = DefaultScrapeWait
	}
	if o.MaxPools <= 0 {
		o.MaxPools = DefaultMaxPools
	}
	if o.LongAfter <= 0 {
		o.LongAfter = model.DefaultLongAfter
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Exporter holds the targets' last reads and serves them.
type Exporter struct {
	opts    Options
	targets []*target
	reg     *prometheus.Registry
	descs   descs
	// ctx is cancelled by Close: it ends reads and scans in flight.
	ctx    context.Context
	cancel context.CancelFunc
	// mu guards closed; wg counts the reads and scans running.
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// ErrNoTargets is returned by New without targets.
var ErrNoTargets = errors.New("no targets to export")

// New checks the targets (distinct names, a reader each) and returns an
// exporter that reads nothing until the first scrape. Close it when done.
func New(targets []Target, opts Options) (*Exporter, error) {
	if len(targets) == 0 {
		return nil, ErrNoTargets
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	e := &Exporter{opts: opts, reg: prometheus.NewRegistry(), descs: newDescs(), ctx: ctx, cancel: cancel}
	seen := map[string]bool{}
	for _, t := range targets {
		if t.Name == "" || t.Reader == nil {
			cancel()
			return nil, fmt.Errorf("target %q: a name and a reader are required", t.Name)
		}
		if seen[t.Name] {
			cancel()
			return nil, fmt.Errorf("target %q is given twice", t.Name)
		}
		seen[t.Name] = true
		e.targets = append(e.targets, &target{Target: t})
	}
	if err := e.reg.Register(collector{e}); err != nil {
		cancel()
		return nil, fmt.Errorf("register collector: %w", err)
	}
	return e, nil
}

// Handler serves /metrics and /healthz.
func (e *Exporter) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "workq-tui exporter: metrics at /metrics, health at /healthz")
	})
	return mux
}

// Gatherer is the exporter's registry, for tests and for embedding.
func (e *Exporter) Gatherer() prometheus.Gatherer { return e.reg }

// Close cancels the reads and scans in flight and waits for them to end;
// later scrapes answer with the last values and start no read.
func (e *Exporter) Close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
}
