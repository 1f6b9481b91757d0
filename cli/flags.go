package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/model"
)

// The flags that several commands share besides the target's.

// addDeadAfter declares --dead-after, the cut-off that makes a pool dead.
func addDeadAfter(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "dead-after", model.DefaultDeadAfter, "a pool whose heartbeat is this old is dead (gocraft/work uses 10s)")
}

func checkDeadAfter(d time.Duration) error {
	if d <= 0 {
		return usageErrorf("--dead-after must be positive")
	}
	return nil
}

// addBatch declares --batch, the jobs moved per script call.
func addBatch(fs *pflag.FlagSet, n *int) {
	fs.IntVar(n, "batch", 1000, "jobs moved per script call")
}

func checkBatch(n int) error {
	if n < 1 {
		return usageErrorf("--batch must be at least 1")
	}
	return nil
}
