// Redis health: whether the Redis under a namespace is set up to lose jobs
// (an eviction policy, memory near its limit, changes not on disk, a
// replica behind), and the dead set's growth. Findings of their own kinds:
// warnings that do not count in HasProblems.

package model

import (
	"fmt"
	"time"
)

// Health finding kinds.
const (
	FindingEvictionPolicy = "redis_eviction_policy"
	FindingMemory         = "redis_memory"
	FindingNotPersisted   = "redis_not_persisted"
	FindingReplica        = "redis_replica"
	FindingDeadSet        = "dead_set"
	FindingHealthUnread   = "redis_health_unreadable"
)

// MemoryWarnRatio is the share of maxmemory above which used memory is a
// finding.
const MemoryWarnRatio = 0.9

// UnsavedWarnAfter is how long changes may stay unsaved (no AOF) before
// they are a finding.
const UnsavedWarnAfter = 15 * time.Minute

// ReplicaLagWarn is the replication lag above which a replica is a
// finding.
const ReplicaLagWarn = 10 * time.Second

// RedisHealth is what INFO memory, persistence and replication say, and the
// dead set's oldest member.
type RedisHealth struct {
	// Unreadable is set when the user may not run INFO; nothing else is
	// then known but the dead set.
	Unreadable bool `json:"unreadable"`
	// Unreported is set when the server answers INFO without its memory,
	// persistence and replication sections (an embedded Redis): nothing is
	// known of them, and nothing is said.
	Unreported      bool   `json:"unreported,omitempty"`
	MaxmemoryPolicy string `json:"maxmemory_policy"`
	UsedMemory      int64  `json:"used_memory"`
	Maxmemory       int64  `json:"maxmemory"`
	AOFEnabled      bool   `json:"aof_enabled"`
	// RDBSaves is how many RDB saves the server made since it started;
	// -1 when INFO does not say (before Redis 7).
	RDBSaves                int64  `json:"rdb_saves"`
	RDBLastSaveTime         int64  `json:"rdb_last_save_time"`
	RDBChangesSinceLastSave int64  `json:"rdb_changes_since_last_save"`
	Role                    string `json:"role"`
	// MasterLinkUp is a replica's link to its master (role slave only).
	MasterLinkUp bool `json:"master_link_up"`
	// Replicas are a master's replicas as INFO replication lists them.
	Replicas []ReplicaInfo `json:"replicas"`
	// DeadSize is ZCARD of the dead set, OldestDead the score of its
	// oldest member (0 when empty).
	DeadSize   int64 `json:"dead_size"`
	OldestDead int64 `json:"oldest_dead"`
}

// ReplicaInfo is one `slaveN:` line of INFO replication.
type ReplicaInfo struct {
	Addr  string `json:"addr"`
	State string `json:"state"`
	// Lag is the seconds since the replica's last ack; -1 when unknown.
	Lag int64 `json:"lag"`
}

// DeadSetWarnSize is the dead set size above which the set is a finding.
const DeadSetWarnSize = 10000

// HealthFindings lists what h says about the safety of the queue, at Redis
// time now.
func HealthFindings(h *RedisHealth, subject string, now time.Time) []Finding {
	if h == nil {
		return nil
	}
	var out []Finding
	add := func(kind, detail string) { out = append(out, Finding{Kind: kind, Subject: subject, Detail: detail}) }
	switch {
	case h.Unreadable:
		add(FindingHealthUnread, "Redis health (INFO) is not readable with this user")
	case h.Unreported:
		// The server reports no memory or persistence facts: there is
		// nothing to judge, and no user to blame.
	default:
		if h.MaxmemoryPolicy != "" && h.MaxmemoryPolicy != "noeviction" {
			add(FindingEvictionPolicy, fmt.Sprintf("maxmemory-policy is %s: gocraft/work's keys have no TTL, so under memory pressure Redis evicts queued jobs (use noeviction)", h.MaxmemoryPolicy))
		}
		if h.Maxmemory > 0 && float64(h.UsedMemory) > MemoryWarnRatio*float64(h.Maxmemory) {
			add(FindingMemory, fmt.Sprintf("used memory %s is %.0f%% of maxmemory %s", bytesText(h.UsedMemory), 100*float64(h.UsedMemory)/float64(h.Maxmemory), bytesText(h.Maxmemory)))
		}
		if !h.AOFEnabled && h.RDBChangesSinceLastSave > 0 {
			since := now.Sub(time.Unix(h.RDBLastSaveTime, 0))
			switch {
			case h.RDBSaves == 0:
				add(FindingNotPersisted, fmt.Sprintf("AOF is off and no RDB save since the server started: a restart now loses %d changes", h.RDBChangesSinceLastSave))
			case since > UnsavedWarnAfter:
				add(FindingNotPersisted, fmt.Sprintf("AOF is off and the last RDB save was %s ago: a restart now loses %d changes", FormatAge(since), h.RDBChangesSinceLastSave))
			}
		}
		if h.Role == "slave" && !h.MasterLinkUp {
			add(FindingReplica, "this replica's link to its master is down")
		}
		for _, r := range h.Replicas {
			switch {
			case r.State != "" && r.State != "online":
				add(FindingReplica, fmt.Sprintf("replica %s is %s", r.Addr, r.State))
			case r.Lag > int64(ReplicaLagWarn/time.Second):
				add(FindingReplica, fmt.Sprintf("replica %s lags %ds behind", r.Addr, r.Lag))
			}
		}
	}
	if h.DeadSize > DeadSetWarnSize {
		add(FindingDeadSet, fmt.Sprintf("the dead set holds %d jobs, the oldest dead for %s: gocraft/work never trims it", h.DeadSize, FormatAge(max(now.Sub(time.Unix(h.OldestDead, 0)), 0))))
	}
	return out
}

func bytesText(n int64) string {
	const mb = 1 << 20
	if n >= mb {
		return fmt.Sprintf("%.1f MiB", float64(n)/mb)
	}
	return fmt.Sprintf("%d B", n)
}
