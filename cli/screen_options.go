package cli

import (
	"context"
	"io"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/tui"
)

// ScreenOptions are the options of the screen that the screen's flags
// args open (one target), filled as the program fills them before it
// opens the screen in a terminal: the same reader, actor, audit log,
// keys, columns and saved queries. getenv stands for the environment and
// out for the terminal (colours off with NO_COLOR, the clipboard's OSC 52
// sequences). done closes the target's connections. Tests drive the
// screen this builds with tea messages: tui.New(opts).
func ScreenOptions(ctx context.Context, args []string, getenv func(string) string, out io.Writer) (opts tui.Options, done func(), err error) {
	fs := newFlagSet(screenCommand())
	if err := fs.Parse(args); err != nil {
		return tui.Options{}, nil, usageErrorf("%v", err)
	}
	if fs.NArg() > 0 {
		return tui.Options{}, nil, usageErrorf("unknown command %q", fs.Arg(0))
	}
	c := fs.runner.(*screenCmd)
	e := env{stdout: out, stderr: io.Discard, getenv: getenv}
	ts, err := c.screenTargets(e)
	if err != nil {
		return tui.Options{}, nil, err
	}
	if len(ts) != 1 {
		return tui.Options{}, nil, usageErrorf("one target only, not %d", len(ts))
	}
	if err := c.checkScreen(e); err != nil {
		return tui.Options{}, nil, err
	}
	settings, err := c.screenSettings(e)
	if err != nil {
		return tui.Options{}, nil, err
	}
	auditPath, err := c.auditPath(e, !ts[0].redis.ReadOnly)
	if err != nil {
		return tui.Options{}, nil, err
	}
	dark, _ := darkBackground(c.theme, getenv) // checked above
	auditor := &audit.File{Path: auditPath, User: osUser(getenv)}
	opts, done, err = c.targetOptions(ctx, ts[0], screenRenderer(e, dark), auditor, getenv)
	if err != nil {
		return tui.Options{}, nil, err
	}
	settle(&opts, e, settings, loadCmdLines(e))
	// As in run: n on an empty namespace ends the screen, and the
	// program opens the one chosen (Model.SwitchTo).
	opts.SwitchNamespace = true
	return opts, done, nil
}

// FleetOptions are the options of the fleet screen that the screen's
// flags args open (several targets: --all-targets, --target repeated,
// --redis repeated), filled as the program fills them: each target's own
// reader, actor, keys, columns and command line history, one audit log.
// done closes every target's connections. Tests drive the screen this
// builds: tui.NewFleet(opts).
func FleetOptions(ctx context.Context, args []string, getenv func(string) string, out io.Writer) (opts tui.FleetOptions, done func(), err error) {
	fs := newFlagSet(screenCommand())
	if err := fs.Parse(args); err != nil {
		return tui.FleetOptions{}, nil, usageErrorf("%v", err)
	}
	if fs.NArg() > 0 {
		return tui.FleetOptions{}, nil, usageErrorf("unknown command %q", fs.Arg(0))
	}
	c := fs.runner.(*screenCmd)
	e := env{stdout: out, stderr: io.Discard, getenv: getenv}
	ts, err := c.screenTargets(e)
	if err != nil {
		return tui.FleetOptions{}, nil, err
	}
	if len(ts) < 2 {
		return tui.FleetOptions{}, nil, usageErrorf("a fleet takes several targets, not %d", len(ts))
	}
	if err := c.checkScreen(e); err != nil {
		return tui.FleetOptions{}, nil, err
	}
	settings, err := c.screenSettings(e)
	if err != nil {
		return tui.FleetOptions{}, nil, err
	}
	writable := false
	for _, t := range ts {
		writable = writable || !t.redis.ReadOnly
	}
	auditPath, err := c.auditPath(e, writable)
	if err != nil {
		return tui.FleetOptions{}, nil, err
	}
	dark, _ := darkBackground(c.theme, getenv) // checked above
	renderer := screenRenderer(e, dark)
	auditor := &audit.File{Path: auditPath, User: osUser(getenv)}
	var closers []func()
	done = func() {
		for _, cl := range closers {
			cl()
		}
	}
	lines := loadCmdLines(e)
	all := make([]tui.Options, 0, len(ts))
	for _, t := range ts {
		o, closeTarget, err := c.targetOptions(ctx, t, renderer, auditor, getenv)
		if err != nil {
			done()
			return tui.FleetOptions{}, nil, c.withTarget(err, t)
		}
		settle(&o, e, settings, lines)
		closers = append(closers, closeTarget)
		all = append(all, o)
	}
	return tui.FleetOptions{Targets: all, ReadOnly: !writable, Renderer: renderer, Columns: settings.Columns["fleet"]}, done, nil
}
