// Command workq-tui is a terminal UI and command-line tool for operators of
// gocraft/work: it shows every worker pool of a namespace, marks the dead
// ones and, on confirmation, reaps them with the same end state as
// gocraft/work's own dead pool reaper.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/workq-tui/workq-tui/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, version)
	stop()
	os.Exit(code)
}
