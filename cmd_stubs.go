package main

// Commands still being built. Each moves to its own file when it lands.

import (
	"context"
	"errors"
)

var errNotBuilt = errors.New("not built yet")

func screenCommand() command {
	return command{name: "", flags: []string{"interval", "scan-interval", "audit-log", "batch"},
		run: func(context.Context, env, *config, []string) error { return errNotBuilt }}
}

func startDemo(context.Context, *config) (string, func(), error) {
	return "", nil, errNotBuilt
}
