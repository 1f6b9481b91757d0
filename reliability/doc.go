// Package reliability holds end-to-end tests: they drive the built workq-tui
// binary (and, where a finer look is needed, the tui model in-process)
// against a real redis-server and prove, with checks that can fail, that
// read-only never writes, that a reap killed with SIGKILL at random points
// loses and duplicates nothing, that Redis restarts, bad passwords and bad
// data are survived, and that text from Redis never reaches the terminal raw.
//
// The package has no code of its own; everything is in the _test.go files.
// Set WORKQ_STRESS=1 (make stress) to run the long versions.
package reliability
