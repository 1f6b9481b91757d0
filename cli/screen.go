package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"runtime/debug"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/config"
	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/linehistory"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// screenMemoryLimit is the screen's soft memory limit (see screenCmd.run).
const screenMemoryLimit = 64 << 20

// screenCommand is the command with the empty name: the screen.
func screenCommand() command {
	return command{
		summary: "open the screen",
		help: `Open the screen: every worker pool of the namespace with its heartbeat age,
in-progress lists and locks, the job types and the orphaned in-progress
lists, refreshed every --interval; reap, requeue and repair on
confirmation (not with --read-only). Several targets (--target repeated,
--all-targets, or --redis/--namespace repeated in pairs) open the fleet
screen: one row per target, the worst first; enter opens a target's
screen, esc comes back.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &screenCmd{}
			c.target.addFlags(fs)
			addDeadAfter(fs, &c.deadAfter)
			addLongAfter(fs, &c.longAfter)
			addHealthLimits(fs, &c.limits)
			fs.DurationVar(&c.interval, "interval", 2*time.Second, "time between polls (at least 250ms)")
			fs.DurationVar(&c.scanInterval, "scan-interval", 60*time.Second, "time between orphan scans")
			fs.DurationVar(&c.sweepInterval, "sweep-interval", 30*time.Second, "time between full sweeps (every in-progress list read, paced; the drift shown comes from them)")
			fs.StringVar(&c.auditLog, "audit-log", "", "append one line per executed action to `FILE` (default: the user's state directory)")
			addBatch(fs, &c.batch)
			fs.BoolVar(&c.allTargets, "all-targets", false, "open the fleet screen of every target of the configuration file")
			fs.StringVar(&c.theme, "theme", themeAuto, "the terminal's background, for the colours: auto, light or dark (auto: from COLORFGBG, else dark; the terminal is never asked)")
			return c
		},
	}
}

type screenCmd struct {
	target
	deadAfter     time.Duration
	longAfter     time.Duration
	limits        model.HealthLimits
	interval      time.Duration
	scanInterval  time.Duration
	sweepInterval time.Duration
	auditLog      string
	batch         int
	theme         string
	allTargets    bool
}

// checkScreen checks the screen's own flags (the targets are checked by
// screenTargets).
func (c *screenCmd) checkScreen(e env) error {
	switch {
	case c.interval < 250*time.Millisecond:
		return usageErrorf("--interval must be at least 250ms")
	case c.scanInterval <= 0:
		return usageErrorf("--scan-interval must be positive")
	case c.sweepInterval <= 0:
		return usageErrorf("--sweep-interval must be positive")
	}
	if err := checkDeadAfter(c.deadAfter); err != nil {
		return err
	}
	if err := checkLongAfter(c.longAfter); err != nil {
		return err
	}
	if err := checkBatch(c.batch); err != nil {
		return err
	}
	_, err := darkBackground(c.theme, e.getenv)
	return err
}

// run opens the screen on the alternate screen and returns when the
// operator quits (or the process is told to stop). Redis being down is not
// an error here: the screen shows it and keeps retrying. Several targets
// (--target repeated, --all-targets, --redis/--namespace repeated) open the
// fleet screen instead (screen_fleet.go).
func (c *screenCmd) run(ctx context.Context, e env, args []string) error {
	ts, err := c.screenTargets(e)
	if err != nil {
		return err
	}
	if err := c.checkScreen(e); err != nil {
		return err
	}
	settings, err := c.screenSettings(e)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usageErrorf("unknown command %q", args[0])
	}
	if !e.stdinIsTTY {
		return usageErrorf("the screen needs a terminal; use `workq-tui snapshot` (or --json) to read the state once")
	}
	writable := false
	for _, t := range ts {
		writable = writable || !t.redis.ReadOnly
	}
	auditPath, err := c.auditPath(e, writable)
	if err != nil {
		return err
	}
	// The screen holds one snapshot while it reads the next: a soft memory
	// limit keeps the Go heap from doubling around the two (10,000 pools:
	// 103 MB resident without it, 70 MB with). It is a soft limit: a bigger
	// namespace still fits, the GC just runs more often. A fleet holds two
	// per target. GOMEMLIMIT, when set, wins.
	if e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(screenMemoryLimit * int64(len(ts)))
	}
	dark, _ := darkBackground(c.theme, e.getenv) // checked above
	renderer := screenRenderer(e, dark)
	auditor := &audit.File{Path: auditPath, User: osUser(e.getenv)}

	var closers []func()
	defer func() {
		for _, cl := range closers {
			cl()
		}
	}()
	lines := loadCmdLines(e)
	all := make([]tui.Options, 0, len(ts))
	for _, t := range ts {
		opts, closeTarget, err := c.targetOptions(ctx, t, renderer, auditor, e.getenv)
		settle(&opts, e, settings, lines)
		if err != nil {
			if len(ts) > 1 {
				return c.withTarget(err, t)
			}
			return err
		}
		closers = append(closers, closeTarget)
		all = append(all, opts)
	}
	if len(all) > 1 {
		_, err := runProgram(ctx, e, tui.NewFleet(tui.FleetOptions{Targets: all, ReadOnly: !writable, Renderer: renderer,
			Columns: settings.Columns["fleet"]}))
		return err
	}
	// One target: n on an empty namespace ends the screen to open it again
	// on the namespace chosen, built anew as if given with -n.
	t, opts := ts[0], all[0]
	for {
		opts.SwitchNamespace = true
		final, err := runProgram(ctx, e, tui.New(opts))
		m, ok := final.(tui.Model)
		if err != nil || !ok || m.SwitchTo() == "" {
			return err
		}
		t.namespace = m.SwitchTo()
		// The old namespace's connections go before the new ones open.
		closers[len(closers)-1]()
		closers = closers[:len(closers)-1]
		var closeTarget func()
		if opts, closeTarget, err = c.targetOptions(ctx, t, renderer, auditor, e.getenv); err != nil {
			return err
		}
		settle(&opts, e, settings, loadCmdLines(e))
		closers = append(closers, closeTarget)
	}
}

// auditPath is where the screen's actions are recorded: --audit-log, else
// the user's state directory. Without one a writable screen is refused; a
// read-only screen opens and shows no history (u says why).
func (c *screenCmd) auditPath(e env, writable bool) (string, error) {
	if c.auditLog != "" {
		return c.auditLog, nil
	}
	home, _ := os.UserHomeDir()
	p, err := audit.DefaultPath(e.getenv, home)
	if err != nil && writable {
		return "", usageErrorf("%v", err)
	}
	return p, nil
}

// settle gives the options of a target what every target's screen shares:
// the keys, columns and saved queries of the configuration file, the
// clipboard (the terminal) and the command line's history.
func settle(opts *tui.Options, e env, settings *config.File, lines cmdLines) {
	opts.Bindings, opts.Columns = settings.Bindings, settings.Columns
	opts.Clipboard = e.stdout
	opts.Queries, opts.QueriesFrom = settings.Queries, settings.Path
	opts.CmdLines, opts.CmdLineStore, opts.CmdLinesErr = lines.lines, lines.store, lines.err
}

// cmdLines is the command line's history of the runs before and where it
// is kept, or why it is not.
type cmdLines struct {
	lines []string
	store tui.LineStore
	err   string
}

// loadCmdLines reads the command line's history from the state
// directory, beside the audit log's default place (whatever --audit-log
// says, the history is the user's, not the write's record). Without a
// state directory there is none; a file that cannot be read safely is
// neither read nor written, and the screen says why.
func loadCmdLines(e env) cmdLines {
	home, _ := os.UserHomeDir()
	if h := e.getenv("HOME"); h != "" {
		home = h
	}
	p, err := audit.DefaultPath(e.getenv, home)
	if err != nil {
		return cmdLines{}
	}
	f := linehistory.File{Path: linehistory.DefaultPath(p)}
	lines, err := f.Load()
	if err != nil {
		return cmdLines{err: fmt.Sprintf("command history not read: %v", err)}
	}
	return cmdLines{lines: lines, store: f}
}

// runProgram runs the screen on the alternate screen until it ends, and
// returns its last model.
func runProgram(ctx context.Context, e env, root tea.Model) (tea.Model, error) {
	p := tea.NewProgram(root, tea.WithAltScreen(), tea.WithContext(ctx),
		tea.WithInput(e.stdin), tea.WithOutput(e.stdout))
	final, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil // SIGTERM or SIGINT from outside: a normal end
	}
	if err != nil {
		return final, localErrorf("screen: %w", err)
	}
	return final, nil
}

// targetOptions builds the screen of one target: its dialer, client and
// pool (closed by done), its reads, and unless it is read-only its actions,
// recorded in auditor. The screen of one target and every target of the
// fleet are built here.
func (c *screenCmd) targetOptions(ctx context.Context, t *target, renderer *lipgloss.Renderer, auditor tui.Auditor, getenv func(string) string) (opts tui.Options, done func(), err error) {
	d, stop, err := t.open(ctx)
	if err != nil {
		return tui.Options{}, nil, err
	}
	client := redisq.NewDialerClient(d, t.namespace, t.deadAfter)
	closers := []func(){stop, func() { client.Close() }}
	done = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	opts = tui.Options{
		Address:   d.Endpoint().String(),
		Namespace: t.namespace,
		Target:    c.targetName(t),
		ReadOnly:  t.redis.ReadOnly,
		Demo:      t.demo,
		Interval:  c.interval,
		LongAfter: c.longAfter,
		// A snapshot is at most a few round trips, each bounded by --timeout.
		FetchTimeout:  4 * d.Timeout(),
		Renderer:      renderer,
		ScanInterval:  c.scanInterval,
		ScanPause:     model.ScanPause,
		SweepInterval: c.sweepInterval,
		// What a copied command starts with: as the explanations' fixes.
		CommandPrefix: screenFixPrefix(t),
	}
	hist := screenHistoryOf(auditPathOf(auditor), t)
	opts.Reads = screenReadsOf(client, d, t, hist, c.longAfter)
	limits, err := t.healthLimits(c.limits)
	if err != nil {
		done()
		return tui.Options{}, nil, err
	}
	opts.Reads = withJobHealth(opts.Reads, client, redisq.NewHealthTracker(t.namespace, limits), c.longAfter)
	if !t.redis.ReadOnly {
		pool := d.Pool()
		closers = append(closers, func() { pool.Close() })
		// One reaper reaps, requeues and repairs the locks.
		r := reaper.NewReaper(pool, t.namespace, c.batch)
		opts.Writes = screenWritesOf(r, pool, t, c.batch, newScreenJournal(auditor, t), hist, getenv)
		opts.Audit = auditor
	}
	return opts, done, nil
}

// screenSettings reads the screen's keys and columns from the
// configuration file: the one --config names, else the default one when
// there is one. A file that does not parse stops the screen like any bad
// input, with a line per problem.
func (c *screenCmd) screenSettings(e env) (*config.File, error) {
	if c.configPath == "" && !defaultConfigPlace(e.getenv) {
		return &config.File{}, nil
	}
	return readConfig(e, c.configPath)
}

// defaultConfigPlace reports whether the environment names a place for
// the default configuration file (HOME or XDG_CONFIG_HOME).
func defaultConfigPlace(getenv func(string) string) bool {
	_, err := config.DefaultPath(getenv)
	return err == nil
}

// screenRenderer is the renderer of every style of the screen. Its
// background is set, never detected: detection asks the terminal and waits
// for an answer that some terminals never give.
func screenRenderer(e env, dark bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(e.stdout)
	r.SetHasDarkBackground(dark)
	if e.getenv("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
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
