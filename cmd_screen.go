package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"runtime/debug"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// screenMemoryLimit is the screen's soft memory limit (see runScreen).
const screenMemoryLimit = 64 << 20

// screenCommand is the command with the empty name: the screen.
func screenCommand() command {
	return command{name: "", flags: []string{"interval", "scan-interval", "audit-log", "batch"}, run: runScreen}
}

// runScreen opens the screen on the alternate screen and returns when the
// operator quits (or the process is told to stop). Redis being down is not
// an error here: the screen shows it and keeps retrying.
func runScreen(ctx context.Context, e env, cfg *config, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unknown command %q", args[0])
	}
	if !e.stdinIsTTY {
		return usageErrorf("the screen needs a terminal; use `workq-tui snapshot` (or --json) to read the state once")
	}
	auditPath := cfg.cmd.auditLog
	if auditPath == "" && !cfg.redis.ReadOnly {
		home, _ := os.UserHomeDir()
		p, err := tui.DefaultAuditPath(e.getenv, home)
		if err != nil {
			return usageErrorf("%v", err)
		}
		auditPath = p
	}
	// The screen holds one snapshot while it reads the next: a soft memory
	// limit keeps the Go heap from doubling around the two (10,000 pools:
	// 103 MB resident without it, 70 MB with; make bench, issue 8). It is a
	// soft limit: a bigger namespace still fits, the GC just runs more
	// often. GOMEMLIMIT, when set, wins.
	if e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(screenMemoryLimit)
	}
	d, stop, err := cfg.connect(ctx)
	if err != nil {
		return err
	}
	defer stop()
	client := redisq.NewDialerClient(d, cfg.namespace, cfg.deadAfter)
	defer client.Close()

	renderer := lipgloss.NewRenderer(e.stdout)
	if e.getenv("NO_COLOR") != "" {
		renderer.SetColorProfile(termenv.Ascii)
	}
	opts := tui.Options{
		Address:   d.Endpoint().String(),
		Namespace: cfg.namespace,
		ReadOnly:  cfg.redis.ReadOnly,
		Demo:      cfg.cmd.demo,
		Interval:  cfg.cmd.interval,
		// A snapshot is at most a few round trips, each bounded by --timeout.
		FetchTimeout: 4 * d.Timeout(),
		Renderer:     renderer,
		Source:       client,
		Peeker:       redisq.RawPeeker{Client: client},
		ScanInterval: cfg.cmd.scanInterval,
		Scanner:      screenScanner{dial: d.Dial, keys: redisq.NewKeys(cfg.namespace), count: redisq.DefaultScanCount},
	}
	if !cfg.redis.ReadOnly {
		pool := d.Pool()
		defer pool.Close()
		opts.Reaper = reaper.NewReaper(pool, cfg.namespace, cfg.cmd.batch)
		opts.Planner = reaper.NewPlan
		opts.Audit = &tui.FileAudit{Path: auditPath, User: osUser(e.getenv)}
		repairer := reaper.NewRepairer(pool, cfg.namespace, cfg.cmd.batch)
		opts.Requeuer, opts.LockRepairer = repairer, repairer
	}
	p := tea.NewProgram(tui.New(opts), tea.WithAltScreen(), tea.WithContext(ctx),
		tea.WithInput(e.stdin), tea.WithOutput(e.stdout))
	if _, err := p.Run(); err != nil {
		if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
			return nil // SIGTERM or SIGINT from outside: a normal end
		}
		return fmt.Errorf("screen: %w", err)
	}
	return nil
}

// osUser names the operator in the audit log.
func osUser(getenv func(string) string) string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}
