// Package cli is workq-tui's command line: one file per command, each
// declaring its flags, its help and what it runs; the connection flags are
// declared once (target.go). Run is all that main calls.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/workq-tui/workq-tui/cli/internal/noquery"
)

// env is what a command may use of the process: streams, environment,
// whether stdin is a terminal, the version. Tests build their own.
type env struct {
	stdin      io.Reader
	stdinIsTTY bool
	stdout     io.Writer
	stderr     io.Writer
	getenv     func(string) string
	version    string
}

// Run runs the command line args (without the program name) and returns
// the exit status: 0 nothing wrong, 1 error, 2 bad usage, 3 findings.
// Errors are printed on stderr, one line each.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, version string) int {
	noquery.Restore()
	tty := false
	if f, ok := stdin.(interface{ Fd() uintptr }); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	e := env{stdin: stdin, stdinIsTTY: tty, stdout: stdout, stderr: stderr, getenv: os.Getenv, version: version}
	return exitCode(e.run(ctx, args), stderr)
}

// command is one subcommand. Adding one is a file that returns its command
// and one line in commands.
type command struct {
	name    string // "" is the screen
	args    string // the operands in the usage line, e.g. "POOL_ID..."
	summary string // one line in the command list
	help    string // what --help says above the flags
	// flags declares the command's flags on fs and returns what runs the
	// command once they are parsed.
	flags func(fs *pflag.FlagSet) runner
}

// runner runs a command with its flags parsed; args are the operands.
type runner interface {
	run(ctx context.Context, e env, args []string) error
}

// addressed is a runner that talks to Redis (it embeds a target): the
// address its errors are about, "" before it has one.
type addressed interface {
	address() string
}

// commands lists the subcommands, the screen first.
func commands() []command {
	return []command{
		screenCommand(),
		snapshotCommand(),
		explainCommand(),
		timelineCommand(),
		reapCommand(),
		jobsCommand(),
		findCommand(),
		requeueCommand(),
		repairLocksCommand(),
		removeLeakedCommand(),
		deleteUniqueCommand(),
		pauseCommand(),
		unpauseCommand(),
		throttleCommand(),
		historyCommand(),
		undoCommand(),
		targetsCommand(),
		exporterCommand(),
		versionCommand(),
		completionCommand(),
	}
}

// flagSet is cmd's flag set with its flags declared, and -h/--help and
// --version, which every command takes.
type flagSet struct {
	*pflag.FlagSet
	help, version bool
	runner        runner
}

func newFlagSet(cmd command) *flagSet {
	fs := &flagSet{FlagSet: pflag.NewFlagSet("workq-tui "+cmd.name, pflag.ContinueOnError)}
	fs.SortFlags = false
	fs.SetInterspersed(true)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.runner = cmd.flags(fs.FlagSet)
	fs.BoolVar(&fs.version, "version", false, "print the version and exit")
	fs.BoolVarP(&fs.help, "help", "h", false, "show this help")
	return fs
}

func (e env) run(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == completeRequest {
		return e.complete(ctx, args[1:])
	}
	cmds := commands()
	// Every flag of every command: to tell a flag's value from the command
	// name, and a flag of another command from one that does not exist.
	all := &commandFlags{cmds: cmds}
	at, used := scanArgs(args, all)
	name, rest := "", args
	if at >= 0 {
		name = args[at]
		rest = append(append([]string(nil), args[:at]...), args[at+1:]...)
	}
	var cmd *command
	for i := range cmds {
		if cmds[i].name == name {
			cmd = &cmds[i]
		}
	}
	if cmd == nil {
		if contains(used, "help") {
			printUsage(e.stdout, cmds)
			return nil
		}
		if contains(used, "version") {
			return printVersion(e)
		}
		if f := unknownFlagBefore(args, at, all); f != "" {
			return &exitCodeError{code: ExitUsage, err: unknownFlag(f, all.whole())}
		}
		return usageErrorf("unknown command %q", name)
	}
	fs := newFlagSet(*cmd)
	var foreign []string
	for _, f := range used {
		if fs.Lookup(f) == nil && all.Lookup(f) != nil && !contains(foreign, "--"+f) {
			foreign = append(foreign, "--"+f)
		}
	}
	if len(foreign) > 0 {
		return &exitCodeError{code: ExitUsage, help: cmd.name,
			err: fmt.Errorf("%s does not apply to %s", strings.Join(foreign, ", "), cmd.title())}
	}
	if err := fs.Parse(rest); err != nil {
		return &exitCodeError{code: ExitUsage, help: cmd.name, err: unknownFlagError(durationRangeError(err, fs.FlagSet), fs.FlagSet)}
	}
	switch {
	case fs.help && cmd.name == "":
		printUsage(e.stdout, cmds)
		return nil
	case fs.help:
		printHelp(e.stdout, *cmd, fs)
		return nil
	case fs.version:
		return printVersion(e)
	}
	err := fs.runner.run(ctx, e, fs.Args())
	if a, ok := fs.runner.(addressed); ok {
		err = withAddress(err, a.address())
	}
	// A usage error points to the help of the command that refused.
	var ec *exitCodeError
	if errors.As(err, &ec) && ec.code == ExitUsage && ec.help == "" {
		ec.help = cmd.name
	}
	return err
}

func (c command) title() string {
	if c.name == "" {
		return "the screen"
	}
	return c.name
}

// flagLookup finds a flag by its long or its one-letter name.
type flagLookup interface {
	Lookup(name string) *pflag.Flag
	ShorthandLookup(name string) *pflag.Flag
}

// commandFlags are the flags of every command of cmds, each as the first
// command that declares it declares it (pflag's AddFlagSet keeps the
// first), with the commands' flag sets built only as far as a look-up
// needs: building all twenty for every run was 3 ms of a process's CPU
// and 350 KB, and most command lines name only flags of the first
// commands (the screen's, which every connecting command shares) and of
// their own. A look-up of a flag no command declares builds them all.
type commandFlags struct {
	cmds  []command
	built int
	fs    *pflag.FlagSet
}

// more adds the next command's flags; false when there is none.
func (c *commandFlags) more() bool {
	if c.fs == nil {
		c.fs = pflag.NewFlagSet("all", pflag.ContinueOnError)
	}
	if c.built == len(c.cmds) {
		return false
	}
	c.fs.AddFlagSet(newFlagSet(c.cmds[c.built]).FlagSet)
	c.built++
	return true
}

func (c *commandFlags) Lookup(name string) *pflag.Flag {
	for {
		if c.fs != nil {
			if f := c.fs.Lookup(name); f != nil {
				return f
			}
		}
		if !c.more() {
			return nil
		}
	}
}

func (c *commandFlags) ShorthandLookup(name string) *pflag.Flag {
	for {
		if c.fs != nil {
			if f := c.fs.ShorthandLookup(name); f != nil {
				return f
			}
		}
		if !c.more() {
			return nil
		}
	}
}

// whole is the flag set of every command's flags.
func (c *commandFlags) whole() *pflag.FlagSet {
	for more := true; more; {
		more = c.more()
	}
	return c.fs
}

// scanArgs finds the command name in args, the first operand (-1: none),
// and the long names of the flags given. all tells which flags take a
// value, so that "-n app snapshot" finds snapshot and not app.
func scanArgs(args []string, all flagLookup) (at int, used []string) {
	at = -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if at < 0 && i+1 < len(args) {
				at = i + 1
			}
			return at, used
		case len(a) < 2 || a[0] != '-':
			if at < 0 {
				at = i
			}
		case a[1] == '-':
			name, _, hasValue := strings.Cut(a[2:], "=")
			used = append(used, name)
			if f := all.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++
			}
		default:
			for j := 1; j < len(a); j++ {
				f := all.ShorthandLookup(a[j : j+1])
				if f == nil {
					used = append(used, a[j:j+1])
					break
				}
				used = append(used, f.Name)
				if f.NoOptDefVal == "" {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return at, used
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func printVersion(e env) error {
	fmt.Fprintf(e.stdout, "workq-tui %s\n", e.version)
	return nil
}

// printUsage is the program's help: the commands, and the flags of the
// screen.
func printUsage(w io.Writer, cmds []command) {
	fmt.Fprint(w, `workq-tui: see and repair gocraft/work worker pools in Redis

Usage:
  workq-tui [flags]                 open the screen
  workq-tui COMMAND [flags] [args]

Commands:
`)
	for _, c := range cmds {
		if c.name != "" {
			fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprint(w, "\nFlags of the screen:\n")
	fmt.Fprint(w, flagUsages(newFlagSet(cmds[0]).FlagSet))
	fmt.Fprint(w, `
Environment:
  REDIS_PASSWORD   the Redis password (or use --password-file; never a flag)
  NO_COLOR         disable colours on the screen
  COLORFGBG        with --theme auto: the terminal's background colour

Exit status: 0 nothing wrong, 1 error, 2 bad usage, 3 findings (dead pools,
drift or orphans) from snapshot.

Run 'workq-tui COMMAND --help' for the flags of a command.
`)
}

// printHelp is one command's help: what it does and only its flags.
func printHelp(w io.Writer, c command, fs *flagSet) {
	usage := "workq-tui " + c.name + " [flags]"
	if c.args != "" {
		usage += " " + c.args
	}
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n%s", usage, strings.TrimSpace(c.help), flagUsages(fs.FlagSet))
}
