// The key schema of a gocraft/work namespace, built from the namespace
// value.

package redisq

import (
	"bytes"
	"strings"
)

// Keys builds the Redis keys of one gocraft/work namespace, exactly as
// gocraft/work v0.5.1 spells them.
type Keys struct {
	prefix string // the namespace with one trailing colon
}

// NewKeys returns the key schema of a namespace. A namespace that already
// ends in ':' gets no second one; an empty namespace has no prefix at all.
func NewKeys(namespace string) Keys {
	if n := len(namespace); n > 0 && namespace[n-1] != ':' {
		namespace += ":"
	}
	return Keys{prefix: namespace}
}

// Prefix is the namespace with its trailing colon.
func (k Keys) Prefix() string { return k.prefix }

// WorkerPools is the set of pool IDs.
func (k Keys) WorkerPools() string { return k.prefix + "worker_pools" }

// Heartbeat is a pool's heartbeat hash.
func (k Keys) Heartbeat(poolID string) string { return k.prefix + "worker_pools:" + poolID }

// KnownJobs is the set of every registered job name.
func (k Keys) KnownJobs() string { return k.prefix + "known_jobs" }

// JobsPrefix is "<ns>:jobs:".
func (k Keys) JobsPrefix() string { return k.prefix + "jobs:" }

// Queue is a job type's queue.
func (k Keys) Queue(job string) string { return k.prefix + "jobs:" + job }

// InProgress is a pool's in-progress list for a job type.
func (k Keys) InProgress(job, poolID string) string {
	return k.prefix + "jobs:" + job + ":" + poolID + ":inprogress"
}

// Lock is a job type's running-jobs counter.
func (k Keys) Lock(job string) string { return k.Queue(job) + ":lock" }

// LockInfo is a job type's pool-to-count hash.
func (k Keys) LockInfo(job string) string { return k.Queue(job) + ":lock_info" }

// MaxConcurrency is a job type's cap on lock.
func (k Keys) MaxConcurrency(job string) string { return k.Queue(job) + ":max_concurrency" }

// Paused is present when a job type is paused.
func (k Keys) Paused(job string) string { return k.Queue(job) + ":paused" }

// Retry, Scheduled and Dead are the job zsets.
func (k Keys) Retry() string     { return k.prefix + "retry" }
func (k Keys) Scheduled() string { return k.prefix + "scheduled" }
func (k Keys) Dead() string      { return k.prefix + "dead" }

// InProgressPattern is the SCAN MATCH pattern for every in-progress list of
// the namespace. Glob characters in the prefix are escaped.
func (k Keys) InProgressPattern() string {
	return escapeGlob(k.prefix+"jobs:") + "*:inprogress"
}

// MatchesInProgressPattern reports whether key is one InProgressPattern
// matches: the namespace's "jobs:", anything, then ":inprogress".
func (k Keys) MatchesInProgressPattern(key string) bool {
	head, tail := k.prefix+"jobs:", ":inprogress"
	return len(key) >= len(head)+len(tail) && strings.HasPrefix(key, head) && strings.HasSuffix(key, tail)
}

// UniquePattern is the SCAN MATCH pattern for every unique key of the
// namespace; MatchesUniquePattern reports whether key is one it matches.
func (k Keys) UniquePattern() string { return escapeGlob(k.prefix+"unique:") + "*" }

func (k Keys) MatchesUniquePattern(key string) bool {
	return strings.HasPrefix(key, k.prefix+"unique:")
}

// ParseInProgress splits an in-progress key into job name and pool ID. It
// parses from the right, because a job name may contain ':': the last part is
// "inprogress", the one before it the pool ID, and everything between
// "<ns>:jobs:" and that is the job name.
func (k Keys) ParseInProgress(key string) (job, poolID string, ok bool) {
	rest, found := strings.CutPrefix(key, k.prefix+"jobs:")
	if !found {
		return "", "", false
	}
	rest, found = strings.CutSuffix(rest, ":inprogress")
	if !found {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 || i == len(rest)-1 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// parseInProgressBytes is ParseInProgress of a key as SCAN returns it,
// without making a string of it: the orphan scan only looks the parts up.
func (k Keys) parseInProgressBytes(key []byte) (job, poolID []byte, ok bool) {
	rest, found := bytes.CutPrefix(key, []byte(k.prefix+"jobs:"))
	if !found {
		return nil, nil, false
	}
	rest, found = bytes.CutSuffix(rest, []byte(":inprogress"))
	if !found {
		return nil, nil, false
	}
	i := bytes.LastIndexByte(rest, ':')
	if i <= 0 || i == len(rest)-1 {
		return nil, nil, false
	}
	return rest[:i], rest[i+1:], true
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
