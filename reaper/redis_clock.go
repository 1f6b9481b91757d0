package reaper

import "time"

// redisClock is Redis's clock as one TIME read it, carried on this
// process's monotonic clock: a reading that needs no round trip, for
// calls that have nothing else to read.
type redisClock struct {
	ms int64     // Redis's clock, unix milliseconds
	at time.Time // when it was read; zero: not read yet
}

// set keeps a reading of Redis's clock taken now.
func (c *redisClock) set(ms int64) { c.ms, c.at = ms, time.Now() }

// read reports whether the clock was read.
func (c *redisClock) read() bool { return !c.at.IsZero() }

// nowMs is Redis's clock now: the reading plus the time passed since.
func (c *redisClock) nowMs() int64 { return c.ms + time.Since(c.at).Milliseconds() }
