package cli

import (
	"errors"
	"fmt"

	"github.com/workq-tui/workq-tui/config"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// The configuration file behind --config and --target: loading it, and
// merging a named target with the connection flags (config.Merge: a flag
// given on the command line wins, read_only = true always holds).

// loadConfig reads the configuration file when the command line asks for
// it: --config names it, or --target needs it (then the default path, where
// a missing file holds no targets). Without either it reads nothing, so a
// broken file cannot stop a command that does not use it. Problems in the
// file are printed one per line, with the file and line, and the command
// exits 2.
func (t *target) loadConfig(e env) (*config.File, error) {
	if t.configPath == "" && len(t.names) == 0 {
		return &config.File{}, nil
	}
	return readConfig(e, t.configPath)
}

// readConfig reads the file at path ("" for the default path).
func readConfig(e env, path string) (*config.File, error) {
	var f *config.File
	var err error
	if path != "" {
		f, err = config.Load(path, e.getenv("HOME"))
	} else {
		f, err = config.LoadDefault(e.getenv)
	}
	var ps config.Problems
	switch {
	case errors.As(err, &ps):
		for _, p := range ps {
			fmt.Fprintf(e.stderr, "workq-tui: %s\n", textsafe.Clean(p.String()))
		}
		return nil, &exitCodeError{code: ExitUsage}
	case err != nil:
		return nil, usageErrorf("%v", err)
	}
	return f, nil
}

// merge sets t's settings from the named target of f ("" for none) and the
// flags, validates them and reads the password. The command's own
// --dead-after is read but not written (check does that for a command of
// one target).
func (t *target) merge(e env, f *config.File, name string) error {
	var ct *config.Target
	if name != "" {
		if t.demo {
			return usageErrorf("--demo and --target do not go together")
		}
		var err error
		if ct, err = f.Target(name); err != nil {
			return usageErrorf("%s", textsafe.Clean(err.Error()))
		}
	}
	s := config.Merge(ct, t.settings(), t.fs.Changed)
	t.from = ct
	t.redis.Address, t.namespace, t.redis.DB, t.redis.User = s.Redis, s.Namespace, s.DB, s.User
	t.passwordFile = s.PasswordFile
	t.redis.TLS, t.redis.TLSCAFile, t.redis.TLSSkipVerify = s.TLS, s.TLSCA, s.TLSSkipVerify
	t.redis.Timeout, t.redis.ReadOnly = s.Timeout, s.ReadOnly
	t.deadAfter = s.DeadAfter
	t.sentinel.apply(s.SentinelSettings)
	if err := t.validate(); err != nil {
		return err
	}
	pw, err := s.Password(e.getenv)
	switch {
	case err != nil && ct != nil:
		return localErrorf("target %s: %w", ct.Name, err)
	case err != nil:
		return localErrorf("--password-file: %w", err)
	}
	t.redis.Password = pw
	if !t.sentinel.enabled() {
		return nil
	}
	spw, err := s.SentinelPassword(e.getenv)
	switch {
	case err != nil && ct != nil:
		return localErrorf("target %s: %w", ct.Name, err)
	case err != nil:
		return localErrorf("--sentinel-password-file: %w", err)
	}
	t.sentinel.password = spw
	return nil
}

// settings are the connection flags as configuration settings.
func (t *target) settings() config.Settings {
	s := config.Settings{
		Redis:         t.redis.Address,
		Namespace:     t.namespace,
		DB:            t.redis.DB,
		User:          t.redis.User,
		PasswordFile:  t.passwordFile,
		TLS:           t.redis.TLS,
		TLSCA:         t.redis.TLSCAFile,
		TLSSkipVerify: t.redis.TLSSkipVerify,
		Timeout:       t.redis.Timeout,
		ReadOnly:      t.redis.ReadOnly,

		SentinelSettings: t.sentinel.settings(),
	}
	if d, err := t.fs.GetDuration("dead-after"); err == nil {
		s.DeadAfter = d
	}
	return s
}

// targets is one target per --target (in the order given), each the
// flags merged with that target of the configuration file; without
// --target, the flags alone. For the commands that work on several
// targets. A usage error (an unknown target, a bad flag) is the error; a
// target whose password cannot be read has its error at the same index of
// unusable (nil when it can be used), so that a command can go on with the
// others.
func (t *target) targets(e env) (ts []*target, unusable []error, err error) {
	f, err := t.loadConfig(e)
	if err != nil {
		return nil, nil, err
	}
	names := t.names
	if len(names) == 0 {
		names = []string{""}
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, nil, usageErrorf("--target %s is given twice", n)
		}
		seen[n] = true
		c := *t
		err := c.merge(e, f, n)
		var le localError
		if err != nil && !errors.As(err, &le) {
			return nil, nil, err
		}
		if c.deadAfter <= 0 {
			c.deadAfter = model.DefaultDeadAfter
		}
		ts, unusable = append(ts, &c), append(unusable, err)
	}
	return ts, unusable, nil
}

// name is the target's name: its name in the configuration file, else its
// address.
func (t *target) name() string {
	if t.from != nil {
		return t.from.Name
	}
	return t.address()
}
