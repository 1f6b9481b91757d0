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
		flags:   func(*pflag.FlagSet) runner { return versionCmd{} },
	}
}

type versionCmd struct{}

func (versionCmd) run(_ context.Context, e env, _ []string) error {
	return printVersion(e)
}
