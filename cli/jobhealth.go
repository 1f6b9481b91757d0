package cli

// This file owns the job health flags (--fail-window, --fail-floor...)
// that snapshot, explain, the exporter and the screen share, and how a
// target's keys of the same names fill in those the command line leaves
// out.

import (
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/config"
	"github.com/workq-tui/workq-tui/model"
)

// addHealthLimits declares the job health flags into l, with their
// defaults.
func addHealthLimits(fs *pflag.FlagSet, l *model.HealthLimits) {
	*l = model.DefaultHealthLimits()
	fs.DurationVar(&l.FailWindow, "fail-window", l.FailWindow, "job health: the window whose failure rate is judged")
	fs.DurationVar(&l.FailBaseline, "fail-baseline", l.FailBaseline, "job health: the span before the window whose failure rate is the norm")
	fs.Float64Var(&l.FailFloor, "fail-floor", l.FailFloor, "job health: failures a minute below which a type is never failing")
	fs.Float64Var(&l.FailMultiple, "fail-multiple", l.FailMultiple, "job health: how many times the norm's rate the window's must exceed to be failing")
	fs.DurationVar(&l.WaitLimit, "wait-limit", l.WaitLimit, "job health: a queue whose oldest job waited longer is a backlog")
	fs.DurationVar(&l.StarveAfter, "starve-after", l.StarveAfter, "job health: jobs waiting longer with no slot free are starving (with no live pool, unserved)")
	fs.DurationVar(&l.PausedLimit, "paused-limit", l.PausedLimit, "job health: a paused type whose oldest job waited longer is a paused_backlog")
	fs.DurationVar(&l.CheckinLimit, "checkin-limit", l.CheckinLimit, "job health: a busy worker whose last check-in is older has stopped checking in")
}

// healthLimits are the limits of the flags with, for each flag the
// command line did not give, the target's key of the same name; the
// error names the flag (or key) at fault.
func (t *target) healthLimits(flags model.HealthLimits) (model.HealthLimits, error) {
	l := flags
	if t.from != nil {
		for _, key := range config.HealthKeys() {
			v, ok := t.from.Health[key]
			flag := config.HealthFlag(key)
			if !ok || t.fs != nil && t.fs.Changed(flag) {
				continue
			}
			if err := setHealthLimit(&l, key, v); err != nil {
				return l, usageErrorf("target %s: %s: %v", t.from.Name, key, err)
			}
		}
	}
	if err := l.Check(); err != nil {
		return l, usageErrorf("%v", err)
	}
	return l, nil
}

// setHealthLimit sets one limit from its key's text (as config keeps it).
func setHealthLimit(l *model.HealthLimits, key, v string) error {
	switch key {
	case "fail_floor", "fail_multiple":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return err
		}
		if key == "fail_floor" {
			l.FailFloor = f
		} else {
			l.FailMultiple = f
		}
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return err
	}
	switch key {
	case "fail_window":
		l.FailWindow = d
	case "fail_baseline":
		l.FailBaseline = d
	case "wait_limit":
		l.WaitLimit = d
	case "starve_after":
		l.StarveAfter = d
	case "paused_limit":
		l.PausedLimit = d
	case "checkin_limit":
		l.CheckinLimit = d
	}
	return nil
}
