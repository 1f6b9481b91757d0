package cli

// This file owns what an unknown flag is answered with: the closest flag
// of the command, found by the names other tools give it, a typo or a
// prefix.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/model"
)

// flagAlias is the flag of ours that other tools (redis-cli, the Redis
// clients' options, other queue tools) call name; "" for none.
func flagAlias(name string) string {
	switch name {
	case "ns", "name-space", "prefix":
		return "namespace"
	case "host", "url", "addr", "address", "server", "redis-url", "redis-addr", "uri":
		return "redis"
	case "database", "redis-db":
		return "db"
	case "username", "redis-user":
		return "user"
	case "password", "pass", "auth", "a":
		return "password-file"
	case "readonly", "ro":
		return "read-only"
	case "dryrun", "dry", "plan":
		return "dry-run"
	}
	return ""
}

// suggestFlag names the flag of fs closest to name ("-n/--namespace"),
// "" when none is close: an alias, else the one flag within a small edit
// distance (a swap of two letters counts one), else the one flag name
// starts with.
func suggestFlag(name string, fs *pflag.FlagSet) string {
	if a := flagAlias(name); a != "" && fs.Lookup(a) != nil {
		return flagTitle(fs.Lookup(a))
	}
	limit := 1
	if len(name) >= 5 {
		limit = 2
	}
	var best, prefixed *pflag.Flag
	bestD, prefixes := limit+1, 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := model.EditDistance(name, f.Name); d < bestD {
			best, bestD = f, d
		}
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			prefixed = f
			prefixes++
		}
	})
	switch {
	case best != nil:
		return flagTitle(best)
	case prefixes == 1:
		return flagTitle(prefixed)
	}
	return ""
}

func flagTitle(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

// unknownFlagError is pflag's error for an unknown long flag with the
// closest flag of fs added; other errors are returned as they are.
func unknownFlagError(err error, fs *pflag.FlagSet) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	return unknownFlag(name, fs)
}

func unknownFlag(name string, fs *pflag.FlagSet) error {
	if s := suggestFlag(name, fs); s != "" {
		return fmt.Errorf("unknown flag: --%s (did you mean %s?)", name, s)
	}
	return errors.New("unknown flag: --" + name)
}

// unknownFlagBefore is the first long flag of args[:at] that no command
// has, "" when there is none: the word at at, taken for the command, may
// be that flag's value ("--ns inc3 snapshot").
func unknownFlagBefore(args []string, at int, all flagLookup) string {
	for _, a := range args[:max(at, 0)] {
		if a == "--" {
			break
		}
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			if all.Lookup(name) == nil {
				return name
			}
		}
	}
	return ""
}
