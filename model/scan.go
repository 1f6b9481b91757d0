// The orphan scan as the screen and the CLI see it: how far it has got, and
// how long it pauses between steps so that it never holds Redis for long.

package model

import "time"

// ScanProgress is how far an orphan scan has got.
type ScanProgress struct {
	// Calls is the number of SCAN calls made so far.
	Calls int
	// Candidates is the number of distinct in-progress keys seen so far
	// (of any pool, in the set or not).
	Candidates int
	// Done is set once the cursor came back to 0.
	Done bool
}

// ScanPace is how long a background orphan scan (the screen's) waits after
// each SCAN step, as a multiple of how long the step took. Redis serves one
// command at a time, so a scan that never pauses delays every other client's
// commands; pausing three times a step's duration leaves Redis to the others
// at least three quarters of the time (`make bench` line 4b measures the
// poll during such a scan against the poll alone).
const ScanPace = 3

// ScanPause is the pause after a SCAN step that took step.
func ScanPause(step time.Duration) time.Duration {
	if step < 0 {
		return 0
	}
	return ScanPace * step
}
