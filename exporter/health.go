package exporter

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workq-tui/workq-tui/model"
)

// healthDescs are the metrics of the Redis health a read takes beside the
// snapshot (INFO memory, persistence, replication; the dead set's oldest
// member).
type healthDescs struct {
	readable, findings, usedMemory, maxmemory, policy, aof, unsaved, lastSave *prometheus.Desc
	deadOldestAge, replicaLag, masterLink                                     *prometheus.Desc
}

func newHealthDescs(d func(name, help string, extra ...string) *prometheus.Desc) healthDescs {
	return healthDescs{
		readable:      d("workq_redis_health_readable", "1 when the Redis user may run INFO, so the health metrics are read; 0 otherwise."),
		findings:      d("workq_redis_health_findings", "Redis health findings of the last read, by kind (every kind always present).", "kind"),
		usedMemory:    d("workq_redis_used_memory_bytes", "INFO memory used_memory."),
		maxmemory:     d("workq_redis_maxmemory_bytes", "INFO memory maxmemory (0 = no limit)."),
		policy:        d("workq_redis_maxmemory_policy", "1, labelled with INFO memory maxmemory_policy.", "policy"),
		aof:           d("workq_redis_aof_enabled", "INFO persistence aof_enabled."),
		unsaved:       d("workq_redis_rdb_changes_since_last_save", "INFO persistence rdb_changes_since_last_save."),
		lastSave:      d("workq_redis_rdb_last_save_timestamp_seconds", "INFO persistence rdb_last_save_time."),
		deadOldestAge: d("workq_dead_oldest_age_seconds", "Redis time minus the score of the dead set's oldest member (0 when the set is empty)."),
		replicaLag:    d("workq_redis_replica_lag_seconds", "Seconds since a replica's last acknowledgement (INFO replication of the master).", "replica"),
		masterLink:    d("workq_redis_master_link_up", "1 when this Redis is a replica whose link to its master is up; 0 when it is down (absent on a master)."),
	}
}

func (h healthDescs) all() []*prometheus.Desc {
	return []*prometheus.Desc{h.readable, h.findings, h.usedMemory, h.maxmemory, h.policy, h.aof, h.unsaved,
		h.lastSave, h.deadOldestAge, h.replicaLag, h.masterLink}
}

// healthKinds are the kinds workq_redis_health_findings counts.
func healthKinds() []string {
	return []string{model.FindingEvictionPolicy, model.FindingMemory, model.FindingNotPersisted,
		model.FindingReplica, model.FindingDeadSet, model.FindingHealthUnread}
}

// emitHealth sends the health series of a read that took them.
func (h healthDescs) emit(s *series, snap *model.Snapshot) {
	hl := snap.Health
	if hl == nil {
		return
	}
	gauge := prometheus.GaugeValue
	counts := map[string]int{}
	for _, f := range model.HealthFindings(hl, "redis", snap.RedisTime) {
		counts[f.Kind]++
	}
	for _, k := range healthKinds() {
		s.send(h.findings, gauge, float64(counts[k]), k)
	}
	s.send(h.readable, gauge, boolValue(!hl.Unreadable))
	age := 0.0
	if hl.DeadSize > 0 {
		age = max(snap.RedisTime.Sub(time.Unix(hl.OldestDead, 0)).Seconds(), 0)
	}
	s.send(h.deadOldestAge, gauge, age)
	if hl.Unreadable {
		return
	}
	s.send(h.usedMemory, gauge, float64(hl.UsedMemory))
	s.send(h.maxmemory, gauge, float64(hl.Maxmemory))
	if hl.MaxmemoryPolicy != "" {
		s.send(h.policy, gauge, 1, label(hl.MaxmemoryPolicy))
	}
	s.send(h.aof, gauge, boolValue(hl.AOFEnabled))
	s.send(h.unsaved, gauge, float64(hl.RDBChangesSinceLastSave))
	s.send(h.lastSave, gauge, float64(hl.RDBLastSaveTime))
	for _, r := range hl.Replicas {
		if r.Lag >= 0 {
			s.send(h.replicaLag, gauge, float64(r.Lag), label(r.Addr))
		}
	}
	if hl.Role == "slave" {
		s.send(h.masterLink, gauge, boolValue(hl.MasterLinkUp))
	}
}
