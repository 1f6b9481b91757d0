// Package redisq is everything that talks to Redis: connection options, the
// key schema of gocraft/work, the pipelined snapshot, the orphan scan, job
// peeks and the read-only guard. Each file opens with what it owns.
package redisq
