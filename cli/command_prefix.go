package cli

// This file owns the command prefix in force: what every command the
// program prints for pasting starts with.

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/shellword"
)

// commandPrefix is "workq-tui" and the connection and namespace flags of
// target t as the command line gave them, shell-quoted (--target NAME when
// a target of the configuration file was used; never a password, which
// only comes from the environment or a file): the start of every command
// the program prints for a person to run (explain's fixes, the journal's
// history and undo commands, the timeline), so that pasted it runs against
// the same Redis and namespace. Flags that are not about the connection
// (--read-only, --demo, a command's own) are left out. A flag given once
// per target of a fleet is t's.
func commandPrefix(t *target) string { return strings.Join(commandWords(t), " ") }

// commandWords is commandPrefix as shell words. With --demo the command
// names the embedded Redis (its address once open): pasted in another
// terminal while the demo runs, it acts on the demo's namespace, where
// --demo would start a demo of its own.
func commandWords(t *target) []string {
	parts := []string{"workq-tui"}
	if t.demo {
		parts = append(parts, "--redis", shellword.Quote(t.redis.Address))
		if t.fs != nil && t.fs.Changed("namespace") {
			parts = append(parts, "--namespace", shellword.Quote(t.namespace))
		}
		return parts
	}
	if t.fs == nil {
		return parts
	}
	own := pflag.NewFlagSet("target", pflag.ContinueOnError)
	(&target{}).addFlags(own)
	t.fs.Visit(func(f *pflag.Flag) {
		if own.Lookup(f.Name) == nil || explainOwnFlag(f.Name) {
			return
		}
		switch f.Name {
		case "target":
			if t.from != nil {
				parts = append(parts, "--target", shellword.Quote(t.from.Name))
			}
			return
		case "redis":
			parts = append(parts, "--redis", shellword.Quote(t.redis.Address))
			return
		case "namespace":
			parts = append(parts, "--namespace", shellword.Quote(t.namespace))
			return
		}
		if f.Value.Type() == "bool" {
			if f.Value.String() == "true" {
				parts = append(parts, "--"+f.Name)
			}
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, "--"+f.Name, shellword.Quote(v))
			}
			return
		}
		parts = append(parts, "--"+f.Name, shellword.Quote(f.Value.String()))
	})
	return parts
}
