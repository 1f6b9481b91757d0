package cli

import (
	"fmt"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// The targets of the screen. One target opens the screen of one Redis;
// several open the fleet screen, one row per target, each target polled on
// its own connections and acting on its own Redis:
//
//	--target a --target b       targets of the configuration file
//	--all-targets               every target of the configuration file
//	--redis A --namespace x --redis B --namespace y
//	                            flag targets, paired by order; a flag
//	                            given once holds for every target
//
// Each target is the flags merged with its configuration target, as for a
// command of one target; a read_only target stays read-only, and the
// global --read-only makes every target read-only.

// fleetFlags reports whether the command line names several targets.
func (c *screenCmd) fleetFlags() bool {
	return c.allTargets || len(c.names) > 1 || len(c.redisAll) > 1 || len(c.namespaceAll) > 1
}

// screenTargets checks the connection flags and returns the screen's
// targets: &c.target alone for one target, else one target per row of the
// fleet, in the order given (--all-targets: name order).
func (c *screenCmd) screenTargets(e env) ([]*target, error) {
	if c.allTargets && len(c.names) > 0 {
		return nil, usageErrorf("--all-targets and --target exclude each other")
	}
	if c.allTargets {
		f, err := readConfig(e, c.configPath)
		if err != nil {
			return nil, err
		}
		names := f.Names()
		if len(names) == 0 {
			return nil, usageErrorf("--all-targets: the configuration file %s has no targets", textsafe.Clean(f.Path))
		}
		c.names, c.allTargets = names, false
	}
	if !c.fleetFlags() {
		if err := c.target.check(e); err != nil {
			return nil, err
		}
		if err := checkDeadAfter(c.deadAfter); err != nil {
			return nil, err
		}
		c.target.deadAfter = c.deadAfter
		return []*target{&c.target}, nil
	}
	if err := c.fleetRefusals(); err != nil {
		return nil, err
	}
	var ts []*target
	if len(c.names) > 1 {
		var unusable []error
		var err error
		if ts, unusable, err = c.targets(e); err != nil {
			return nil, err
		}
		for _, err := range unusable {
			if err != nil {
				return nil, err // names the target
			}
		}
	} else {
		var err error
		if ts, err = c.flagTargets(e); err != nil {
			return nil, err
		}
	}
	for _, t := range ts {
		if err := checkDeadAfter(t.deadAfter); err != nil {
			return nil, usageErrorf("target %s: %v", textsafe.Clean(c.targetName(t)), err)
		}
	}
	return ts, nil
}

// fleetRefusals are the flags that do not go with several targets.
func (c *screenCmd) fleetRefusals() error {
	switch {
	case c.demo:
		return usageErrorf("--demo shows one simulated deployment: it does not go with several targets")
	case c.sentinel.enabled() || c.sentinel.changed("sentinel-master") || c.sentinel.changed("replica"):
		return usageErrorf("--sentinel names the Redis of one target: it does not go with several targets")
	case len(c.names) > 0 && (len(c.redisAll) > 1 || len(c.namespaceAll) > 1):
		return usageErrorf("--target and repeated --redis or --namespace exclude each other: name the targets one way")
	}
	return nil
}

// flagTargets pairs the repeated --redis and --namespace by order. Each
// flag is given once (or not at all: its default) or as many times as the
// other; given once, it holds for every target.
func (c *screenCmd) flagTargets(e env) ([]*target, error) {
	n := max(len(c.redisAll), len(c.namespaceAll))
	if r, ns := len(c.redisAll), len(c.namespaceAll); r > 1 && ns > 1 && r != ns {
		return nil, usageErrorf("--redis is given %d times and --namespace %d: give them in pairs, or one of them once", r, ns)
	}
	f, err := c.loadConfig(e)
	if err != nil {
		return nil, err
	}
	pick := func(all []string, i int, def string) string {
		switch len(all) {
		case 0:
			return def
		case 1:
			return all[0]
		}
		return all[i]
	}
	seen := map[string]bool{}
	ts := make([]*target, 0, n)
	for i := range n {
		t := c.target
		t.redis.Address = pick(c.redisAll, i, c.redis.Address)
		t.namespace = pick(c.namespaceAll, i, c.namespace)
		key := t.redis.Address + "/" + t.namespace
		if seen[key] {
			return nil, usageErrorf("namespace %s of Redis %s is given twice", textsafe.Clean(t.namespace), textsafe.Clean(t.redis.Address))
		}
		seen[key] = true
		if err := t.merge(e, f, ""); err != nil {
			return nil, err
		}
		if t.deadAfter <= 0 {
			t.deadAfter = c.deadAfter
		}
		ts = append(ts, &t)
	}
	return ts, nil
}

// targetName names a target on the screen and in its audit lines: its
// name in the configuration file; in a fleet of flag targets its address
// and namespace; "" for a screen of one Redis given by flags.
func (c *screenCmd) targetName(t *target) string {
	switch {
	case t.from != nil:
		return t.from.Name
	case c.fleetFlags():
		return t.redis.Address + "/" + t.namespace
	}
	return ""
}

// withTarget names the target in an error of a fleet's start.
func (c *screenCmd) withTarget(err error, t *target) error {
	return fmt.Errorf("target %s: %w", textsafe.Clean(c.targetName(t)), err)
}
