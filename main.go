// Command workq-tui is a terminal UI and command-line tool for operators of
// gocraft/work: it shows every worker pool of a namespace, marks the dead
// ones and, on confirmation, reaps them with the same end state as
// gocraft/work's own dead pool reaper.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitFindings = 3
)

// exitCodeError carries an exit code other than 1 up to main.
type exitCodeError struct {
	code int
	err  error // nil: print nothing
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitCodeError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error {
	return &exitCodeError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// errFindings makes a command exit 3 without printing an error.
var errFindings = &exitCodeError{code: exitFindings}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode prints err (one line) and maps it to the process exit status.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	code := exitError
	var ec *exitCodeError
	if errors.As(err, &ec) {
		code = ec.code
		if ec.err == nil {
			return code
		}
	}
	msg := oneLine(err.Error())
	if hint := redisq.Hint(err); hint != "" && !strings.Contains(msg, "REDIS_PASSWORD") {
		msg += " (" + hint + ")"
	}
	fmt.Fprintf(stderr, "workq-tui: %s\n", msg)
	if code == exitUsage {
		fmt.Fprintln(stderr, "Run 'workq-tui --help' for usage.")
	}
	return code
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// env is what a command may use of the process: streams, environment and
// whether stdin is a terminal. Tests build their own.
type env struct {
	stdin      io.Reader
	stdinIsTTY bool
	stdout     io.Writer
	stderr     io.Writer
	getenv     func(string) string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e := env{
		stdin:      os.Stdin,
		stdinIsTTY: term.IsTerminal(int(os.Stdin.Fd())),
		stdout:     stdout,
		stderr:     stderr,
		getenv:     os.Getenv,
	}
	return e.run(ctx, args)
}

// config is every flag, parsed and validated.
type config struct {
	redis        redisq.Options
	passwordFile string
	namespace    string
	deadAfter    time.Duration
	showVersion  bool
	help         bool

	// command-specific flags live in cmdFlags; commands read them there.
	cmd cmdFlags
}

// cmdFlags are the flags that belong to one command or another.
type cmdFlags struct {
	json         bool
	dryRun       bool
	yes          bool
	allDead      bool
	batch        int
	interval     time.Duration
	scanInterval time.Duration
	auditLog     string
	demo         bool
	demoSeed     int64
}

// command is one subcommand: its name, the command-specific flags it takes,
// and what it does.
type command struct {
	name    string
	summary string
	flags   []string
	run     func(ctx context.Context, e env, cfg *config, args []string) error
}

// commands lists the subcommands; the empty name is the screen.
func commands() map[string]command {
	list := []command{
		screenCommand(),
		snapshotCommand(),
		reapCommand(),
		requeueCommand(),
		repairLocksCommand(),
		versionCommand(),
	}
	m := make(map[string]command, len(list))
	for _, c := range list {
		m[c.name] = c
	}
	return m
}

func versionCommand() command {
	return command{name: "version", summary: "print the version", run: func(_ context.Context, e env, _ *config, _ []string) error {
		fmt.Fprintf(e.stdout, "workq-tui %s\n", version)
		return nil
	}}
}

func newFlagSet(cfg *config) *pflag.FlagSet {
	fs := pflag.NewFlagSet("workq-tui", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetInterspersed(true)
	// Connection and common flags.
	fs.StringVar(&cfg.redis.Address, "redis", "localhost:6379", "Redis `address`: host:port, or a redis:// or rediss:// URL (no password in it)")
	fs.StringVarP(&cfg.namespace, "namespace", "n", "work", "gocraft/work `namespace`")
	fs.IntVar(&cfg.redis.DB, "db", 0, "Redis database `number`")
	fs.StringVar(&cfg.redis.User, "user", "", "Redis ACL user `name` (the password comes from REDIS_PASSWORD or --password-file)")
	fs.StringVar(&cfg.passwordFile, "password-file", "", "read the Redis password from `FILE` (else from REDIS_PASSWORD)")
	fs.BoolVar(&cfg.redis.TLS, "tls", false, "connect with TLS")
	fs.StringVar(&cfg.redis.TLSCAFile, "tls-ca", "", "trust the CA certificates in `FILE` (PEM) for TLS")
	fs.BoolVar(&cfg.redis.TLSSkipVerify, "tls-skip-verify", false, "do not verify the server's TLS certificate")
	fs.DurationVar(&cfg.redis.Timeout, "timeout", 5*time.Second, "timeout of each Redis call")
	fs.DurationVar(&cfg.deadAfter, "dead-after", model.DefaultDeadAfter, "a pool whose heartbeat is this old is dead (gocraft/work uses 10s)")
	fs.BoolVar(&cfg.redis.ReadOnly, "read-only", false, "never write to Redis: every write command is refused before it is sent")
	fs.BoolVar(&cfg.showVersion, "version", false, "print the version and exit")
	fs.BoolVarP(&cfg.help, "help", "h", false, "show this help")
	// Command-specific flags.
	fs.BoolVar(&cfg.cmd.json, "json", false, "snapshot: print one JSON object")
	fs.BoolVar(&cfg.cmd.dryRun, "dry-run", false, "reap, requeue, repair-locks: print the plan, change nothing")
	fs.BoolVar(&cfg.cmd.yes, "yes", false, "reap, requeue, repair-locks: do not ask for confirmation")
	fs.BoolVar(&cfg.cmd.allDead, "all-dead", false, "reap: every dead pool")
	fs.IntVar(&cfg.cmd.batch, "batch", 1000, "reap, requeue: jobs moved per script call")
	fs.DurationVar(&cfg.cmd.interval, "interval", 2*time.Second, "screen: time between polls (at least 250ms)")
	fs.DurationVar(&cfg.cmd.scanInterval, "scan-interval", 60*time.Second, "screen: time between orphan scans")
	fs.StringVar(&cfg.cmd.auditLog, "audit-log", "", "screen: append one line per executed action to `FILE` (default: the user's state directory)")
	fs.BoolVar(&cfg.cmd.demo, "demo", false, "run on an embedded Redis with a simulated gocraft/work deployment")
	fs.Int64Var(&cfg.cmd.demoSeed, "demo-seed", 1, "seed of the --demo simulation")
	return fs
}

// commonFlags are accepted by every command.
var commonFlags = map[string]bool{
	"redis": true, "namespace": true, "db": true, "user": true, "password-file": true, "tls": true,
	"tls-ca": true, "tls-skip-verify": true, "timeout": true, "dead-after": true, "read-only": true,
	"version": true, "help": true, "demo": true, "demo-seed": true,
}

func (e env) run(ctx context.Context, args []string) error {
	var cfg config
	fs := newFlagSet(&cfg)
	fs.SetOutput(io.Discard)
	cmds := commands()
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printUsage(e.stdout, fs, cmds)
			return nil
		}
		return usageErrorf("%v", err)
	}
	if cfg.help {
		printUsage(e.stdout, fs, cmds)
		return nil
	}
	if cfg.showVersion {
		fmt.Fprintf(e.stdout, "workq-tui %s\n", version)
		return nil
	}
	rest := fs.Args()
	name := ""
	if len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	cmd, ok := cmds[name]
	if !ok {
		return usageErrorf("unknown command %q", name)
	}
	allowed := map[string]bool{}
	for _, f := range cmd.flags {
		allowed[f] = true
	}
	var bad []string
	fs.Visit(func(f *pflag.Flag) {
		if !commonFlags[f.Name] && !allowed[f.Name] {
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) > 0 {
		what := "the screen"
		if name != "" {
			what = name
		}
		return usageErrorf("%s does not apply to %s", strings.Join(bad, ", "), what)
	}
	if err := cfg.finish(e); err != nil {
		return err
	}
	return cmd.run(ctx, e, &cfg, rest)
}

// finish validates the flags and reads the password.
func (cfg *config) finish(e env) error {
	if cfg.redis.Timeout <= 0 {
		return usageErrorf("--timeout must be positive")
	}
	if cfg.deadAfter <= 0 {
		return usageErrorf("--dead-after must be positive")
	}
	if cfg.redis.DB < 0 {
		return usageErrorf("--db must not be negative")
	}
	if cfg.cmd.batch < 1 {
		return usageErrorf("--batch must be at least 1")
	}
	if cfg.cmd.interval < 250*time.Millisecond {
		return usageErrorf("--interval must be at least 250ms")
	}
	if cfg.cmd.scanInterval <= 0 {
		return usageErrorf("--scan-interval must be positive")
	}
	if cfg.namespace == "" {
		return usageErrorf("--namespace must not be empty")
	}
	switch {
	case cfg.passwordFile != "":
		b, err := os.ReadFile(cfg.passwordFile)
		if err != nil {
			return fmt.Errorf("read --password-file: %w", err)
		}
		cfg.redis.Password = strings.TrimRight(string(b), "\r\n")
	case e.getenv("REDIS_PASSWORD") != "":
		cfg.redis.Password = e.getenv("REDIS_PASSWORD")
	}
	return nil
}

func printUsage(w io.Writer, fs *pflag.FlagSet, cmds map[string]command) {
	fmt.Fprint(w, `workq-tui: see and repair gocraft/work worker pools in Redis

Usage:
  workq-tui [flags]                 open the screen
  workq-tui [flags] COMMAND [args]

Commands:
`)
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		if n != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-14s %s\n", n, cmds[n].summary)
	}
	fmt.Fprint(w, `
Flags:
`)
	fmt.Fprint(w, fs.FlagUsages())
	fmt.Fprint(w, `
Environment:
  REDIS_PASSWORD   the Redis password (or use --password-file; never a flag)
  NO_COLOR         disable colours on the screen

Exit status: 0 nothing wrong, 1 error, 2 bad usage, 3 findings (dead pools,
drift or orphans) from snapshot.
`)
}

// connect builds the Redis dialer from the config. With --demo it first
// starts the embedded Redis and the simulation, and points the dialer at it;
// the returned stop function ends them. It does not connect yet: the first
// command sent does, and its error names the address.
func (cfg *config) connect(ctx context.Context) (*redisq.Dialer, func(), error) {
	stop := func() {}
	if cfg.cmd.demo {
		addr, stopDemo, err := startDemo(ctx, cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("start demo: %w", err)
		}
		cfg.redis.Address = addr
		cfg.redis.Password = ""
		cfg.redis.TLS, cfg.redis.TLSCAFile, cfg.redis.TLSSkipVerify = false, "", false
		stop = stopDemo
	}
	d, err := redisq.NewDialer(cfg.redis)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return d, stop, nil
}

// refuseWriteInReadOnly refuses a command that writes to Redis under
// --read-only, before connecting. A --dry-run is let through: it only
// reads, and its connection refuses writes anyway.
func refuseWriteInReadOnly(cfg *config, name string) error {
	if !cfg.redis.ReadOnly || cfg.cmd.dryRun {
		return nil
	}
	return fmt.Errorf("%s writes to Redis and is refused with --read-only (add --dry-run to see its plan)", name)
}
