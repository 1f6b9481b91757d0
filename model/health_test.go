package model

import (
	"strings"
	"testing"
	"time"
)

func TestHealthFindings(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	safe := RedisHealth{MaxmemoryPolicy: "noeviction", UsedMemory: 100, Maxmemory: 0, AOFEnabled: true, RDBSaves: 0, Role: "master"}
	tests := []struct {
		name string
		edit func(h *RedisHealth)
		want string
	}{
		{"safe", func(*RedisHealth) {}, ""},
		{"volatile-lru", func(h *RedisHealth) { h.MaxmemoryPolicy = "volatile-lru" }, FindingEvictionPolicy},
		{"memory at 91%", func(h *RedisHealth) { h.UsedMemory, h.Maxmemory = 91, 100 }, FindingMemory},
		{"memory at 90%", func(h *RedisHealth) { h.UsedMemory, h.Maxmemory = 90, 100 }, ""},
		{"aof off, never saved", func(h *RedisHealth) { h.AOFEnabled, h.RDBChangesSinceLastSave = false, 3 }, FindingNotPersisted},
		{"aof off, saved 20m ago", func(h *RedisHealth) {
			h.AOFEnabled, h.RDBSaves, h.RDBLastSaveTime, h.RDBChangesSinceLastSave = false, 4, now.Unix()-1200, 3
		}, FindingNotPersisted},
		{"aof off, saved 5m ago", func(h *RedisHealth) {
			h.AOFEnabled, h.RDBSaves, h.RDBLastSaveTime, h.RDBChangesSinceLastSave = false, 4, now.Unix()-300, 3
		}, ""},
		{"aof off, nothing changed", func(h *RedisHealth) { h.AOFEnabled = false }, ""},
		{"replica link down", func(h *RedisHealth) { h.Role = "slave" }, FindingReplica},
		{"replica lagging", func(h *RedisHealth) { h.Replicas = []ReplicaInfo{{Addr: "10.0.0.2:6379", State: "online", Lag: 30}} }, FindingReplica},
		{"replica fine", func(h *RedisHealth) { h.Replicas = []ReplicaInfo{{Addr: "10.0.0.2:6379", State: "online", Lag: 1}} }, ""},
		{"dead set large", func(h *RedisHealth) { h.DeadSize, h.OldestDead = DeadSetWarnSize+1, now.Unix()-86400 }, FindingDeadSet},
		{"unreadable", func(h *RedisHealth) { *h = RedisHealth{Unreadable: true} }, FindingHealthUnread},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := safe
			tc.edit(&h)
			var kinds []string
			for _, f := range HealthFindings(&h, "redis", now) {
				kinds = append(kinds, f.Kind)
			}
			if got := strings.Join(kinds, ","); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
	if HealthFindings(nil, "redis", now) != nil {
		t.Error("findings without health")
	}
}
