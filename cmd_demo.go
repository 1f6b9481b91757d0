package main

import (
	"context"

	"github.com/workq-tui/workq-tui/demo"
)

// startDemo starts the embedded Redis (miniredis on 127.0.0.1, a free port)
// with the simulated gocraft/work deployment of package demo in the
// namespace of --namespace, seeded with --demo-seed, moving in real time
// until ctx is done or stop is called. stop also shuts the embedded Redis.
func startDemo(ctx context.Context, cfg *config) (addr string, stop func(), err error) {
	srv, err := demo.Start(ctx, demo.Options{Namespace: cfg.namespace, Seed: cfg.cmd.demoSeed})
	if err != nil {
		return "", nil, err
	}
	return srv.Addr(), srv.Stop, nil
}
