package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/exporter"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// exporterShutdown bounds how long the exporter waits for the scrapes in
// flight when it is told to stop.
const exporterShutdown = 5 * time.Second

func exporterCommand() command {
	return command{
		name:    "exporter",
		summary: "serve Prometheus metrics of one or more targets (read-only)",
		help: `Serve the state of gocraft/work namespaces as Prometheus metrics on
http://LISTEN/metrics, with a health check on /healthz, until stopped
(SIGINT or SIGTERM). Each --target is exported with its name as the target
label; without --target, the connection flags make one target named after
its address. Each target is read at most once per --min-interval however
many scrapes arrive, and scanned for orphans once per --scan-interval. A
job running longer than --long-after counts in workq_long_running_jobs.
Each read judges the job health as snapshot does (the --fail-* flags and
the others, or the target's keys of the same names) into
workq_job_problem{job,kind} and the failure rates; the failures are
followed from read to read, reading only the new ones. It
is read-only whatever the flags or the configuration say: its connections
refuse every command that writes. The metrics are listed in docs/metrics.md.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &exporterCmd{}
			c.target.addFlags(fs)
			addDeadAfter(fs, &c.deadAfter)
			addLongAfter(fs, &c.longAfter)
			addHealthLimits(fs, &c.limits)
			fs.StringVar(&c.listen, "listen", "127.0.0.1:9187", "serve HTTP on `host:port`")
			fs.DurationVar(&c.minInterval, "min-interval", exporter.DefaultMinInterval, "read each target at most once per this interval")
			fs.DurationVar(&c.scanInterval, "scan-interval", exporter.DefaultScanInterval, "time between orphan scans of each target")
			fs.IntVar(&c.maxPools, "max-pools", exporter.DefaultMaxPools, "most pools given pool-labelled series per target")
			return c
		},
	}
}

type exporterCmd struct {
	target
	deadAfter    time.Duration
	longAfter    time.Duration
	limits       model.HealthLimits
	listen       string
	minInterval  time.Duration
	scanInterval time.Duration
	maxPools     int
}

func (c *exporterCmd) run(ctx context.Context, e env, args []string) error {
	if len(args) > 0 {
		return usageErrorf("exporter takes no arguments, got %q", args[0])
	}
	if err := checkLongAfter(c.longAfter); err != nil {
		return err
	}
	switch {
	case c.minInterval <= 0:
		return usageErrorf("--min-interval must be positive")
	case c.scanInterval <= 0:
		return usageErrorf("--scan-interval must be positive")
	case c.maxPools < 1:
		return usageErrorf("--max-pools must be at least 1")
	}
	ts, unusable, err := c.targets(e)
	if err != nil {
		return err
	}
	// A target that cannot be used now is refused at start rather than
	// exported as down for good.
	if err := errors.Join(unusable...); err != nil {
		return err
	}
	var targets []exporter.Target
	var names []string
	var stops []func()
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	for _, t := range ts {
		if err := checkDeadAfter(t.deadAfter); err != nil {
			return err
		}
		// open starts the --demo Redis and finds the address; the source
		// dials its own read-only connections.
		_, stop, err := t.open(ctx)
		if err != nil {
			return err
		}
		stops = append(stops, stop)
		src, err := exporter.NewRedisSource(t.redis, t.namespace, t.deadAfter)
		if err != nil {
			return err
		}
		limits, err := t.healthLimits(c.limits)
		if err != nil {
			return err
		}
		src.JudgeJobs(limits, c.longAfter)
		targets = append(targets, src.Target(t.name()))
		names = append(names, fmt.Sprintf("%s (%s, namespace %s)", textsafe.Clean(t.name()), t.address(), textsafe.Clean(t.namespace)))
	}
	exp, err := exporter.New(targets, exporter.Options{
		MinInterval:  c.minInterval,
		ScanInterval: c.scanInterval,
		MaxPools:     c.maxPools,
		LongAfter:    c.longAfter,
	})
	if err != nil {
		return localErrorf("exporter: %w", err)
	}
	defer exp.Close()

	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", c.listen)
	if err != nil {
		return localErrorf("exporter: listen on %s: %w", c.listen, err)
	}
	srv := &http.Server{Handler: exp.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(e.stderr, "workq-tui exporter: serving http://%s/metrics for %s\n", ln.Addr(), strings.Join(names, ", "))

	select {
	case err := <-served:
		return localErrorf("exporter: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), exporterShutdown)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		// Scrapes still running past the wait are cut off.
		_ = srv.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			return localErrorf("exporter: shut down: %w", err)
		}
	}
	fmt.Fprintln(e.stderr, "workq-tui exporter: stopped")
	return nil
}
