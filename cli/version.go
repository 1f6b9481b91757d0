package cli

import (
	"context"

	"github.com/spf13/pflag"
)

func versionCommand() command {
	return command{
		name:    "version",
		summary: "print the version",
		help:    "Print the version of workq-tui.",
		flags: func(fs *pflag.FlagSet) runner {
			// The connection flags are taken and ignored, not listed: one
			// shell alias with --redis and --namespace works for every
			// command, version included.
			var ignored target
			ignored.addFlags(fs)
			fs.VisitAll(func(f *pflag.Flag) { f.Hidden = true })
			return versionCmd{}
		},
	}
}

type versionCmd struct{}

func (versionCmd) run(_ context.Context, e env, _ []string) error {
	return printVersion(e)
}
