// Redis health: INFO memory, persistence and replication, and the dead
// set's oldest member, in one round trip. Never CONFIG GET: managed Redis
// services refuse it.

package redisq

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

// ReadHealth reads what model.HealthFindings judges. An INFO refused (an
// ACL user without +info, a renamed command) marks the health Unreadable;
// a server that answers INFO without these sections (an embedded Redis
// such as the demo's) marks it Unreported; neither is an error, a
// connection error is.
func ReadHealth(ctx context.Context, conn redis.Conn, keys Keys) (*model.RedisHealth, error) {
	rs, err := pipeline(ctx, conn, []cmd{
		{"INFO", []any{"memory"}},
		{"INFO", []any{"persistence"}},
		{"INFO", []any{"replication"}},
		{"ZCARD", []any{keys.Dead()}},
		{"ZRANGE", []any{keys.Dead(), 0, 0, "WITHSCORES"}},
	})
	if err != nil {
		return nil, fmt.Errorf("read redis health: %w", err)
	}
	h := &model.RedisHealth{RDBSaves: -1}
	if n, err := intReply(rs[3]); err == nil {
		h.DeadSize = n
	}
	if vals, err := redis.Values(rs[4].v, rs[4].err); err == nil && len(vals) == 2 {
		if s, err := redis.String(vals[1], nil); err == nil {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				h.OldestDead = int64(f)
			}
		}
	}
	info := map[string]string{}
	for _, r := range rs[:3] {
		if r.err != nil {
			if sectionUnsupported(r.err) {
				h.Unreported = true
			} else {
				h.Unreadable = true
			}
			// INFO refused, or without the sections: a finding of its
			// own (or none), never a failed snapshot.
			return h, nil
		}
		s, err := redis.String(r.v, nil)
		if err != nil {
			return nil, fmt.Errorf("read redis health: INFO reply: %w", err)
		}
		for k, v := range ParseInfo(s) {
			info[k] = v
		}
	}
	applyInfo(h, info)
	return h, nil
}

// sectionUnsupported reports whether INFO's error says the server has no
// such section, rather than that the user may not run it.
func sectionUnsupported(err error) bool {
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	msg := strings.ToLower(string(re))
	return strings.Contains(msg, "section") && strings.Contains(msg, "not supported")
}

// Health runs ReadHealth on a connection of its own.
func (c *Client) Health(ctx context.Context) (*model.RedisHealth, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	h, err := ReadHealth(ctx, conn, c.keys)
	return h, c.wrap(err)
}

// ParseInfo reads the `field:value` lines of an INFO reply.
func ParseInfo(s string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, "\r")
		if l == "" || l[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(l, ":"); ok {
			out[k] = v
		}
	}
	return out
}

func applyInfo(h *model.RedisHealth, info map[string]string) {
	num := func(k string) int64 {
		n, _ := strconv.ParseInt(info[k], 10, 64)
		return n
	}
	h.MaxmemoryPolicy = info["maxmemory_policy"]
	h.UsedMemory, h.Maxmemory = num("used_memory"), num("maxmemory")
	h.AOFEnabled = info["aof_enabled"] == "1"
	if _, ok := info["rdb_saves"]; ok {
		h.RDBSaves = num("rdb_saves")
	}
	h.RDBLastSaveTime, h.RDBChangesSinceLastSave = num("rdb_last_save_time"), num("rdb_changes_since_last_save")
	h.Role = info["role"]
	h.MasterLinkUp = info["master_link_status"] == "up"
	for i := 0; ; i++ {
		line, ok := info["slave"+strconv.Itoa(i)]
		if !ok {
			break
		}
		r := model.ReplicaInfo{Lag: -1}
		var ip, port string
		for _, kv := range strings.Split(line, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "ip":
				ip = v
			case "port":
				port = v
			case "state":
				r.State = v
			case "lag":
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					r.Lag = n
				}
			}
		}
		r.Addr = ip + ":" + port
		h.Replicas = append(h.Replicas, r)
	}
}
