//go:build !unix

package journal

import "os"

// lock: no advisory locks here; pruning relies on its other rules alone.
func lock(*os.File, bool) error { return nil }
