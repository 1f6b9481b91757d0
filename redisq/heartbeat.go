// The heartbeat hash of a pool, read from an HGETALL reply without a map
// of strings per pool.

package redisq

import (
	"fmt"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

// parseHeartbeat reads an HGETALL of a heartbeat hash: nil when the hash is
// missing. A hash of the wrong type or an unreadable heartbeat_at leaves the
// age unknown (HeartbeatAtMalformed), so the pool is never classed dead from
// data that could not be read.
func parseHeartbeat(r reply) (*model.Heartbeat, []string) {
	if r.err != nil {
		return &model.Heartbeat{HeartbeatAtMalformed: true}, []string{fmt.Sprintf("heartbeat: %v", r.err)}
	}
	f, err := heartbeatFields(r.v)
	if err != nil {
		return &model.Heartbeat{HeartbeatAtMalformed: true}, []string{fmt.Sprintf("heartbeat: %v", err)}
	}
	if f.n == 0 {
		return nil, nil
	}
	hb := &model.Heartbeat{
		Host:      string(f.val[hbHost]),
		JobNames:  model.SplitList(string(f.val[hbJobNames])),
		WorkerIDs: model.SplitList(string(f.val[hbWorkerIDs])),
	}
	var warnings []string
	num := func(field int, name string, dst *int64) {
		if !f.has[field] {
			return
		}
		v := f.val[field]
		n, err := parseIntBytes(v)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("heartbeat %s %q is not a whole number", name, truncate(string(v), 40)))
			return
		}
		*dst = n
	}
	if !f.has[hbAt] {
		hb.HeartbeatAtMissing = true
	} else if n, err := parseIntBytes(f.val[hbAt]); err != nil {
		hb.HeartbeatAtMalformed = true
		warnings = append(warnings, fmt.Sprintf("heartbeat heartbeat_at %q is not a whole number", truncate(string(f.val[hbAt]), 40)))
	} else {
		hb.HeartbeatAt = n
	}
	num(hbStarted, "started_at", &hb.StartedAt)
	num(hbPID, "pid", &hb.PID)
	num(hbConcurrency, "concurrency", &hb.Concurrency)
	return hb, warnings
}

// The heartbeat fields parseHeartbeat reads.
const (
	hbAt = iota
	hbStarted
	hbHost
	hbPID
	hbConcurrency
	hbJobNames
	hbWorkerIDs
	hbFieldCount
)

// hbFields are a heartbeat's fields as read: n fields in all, val and has
// for the ones parseHeartbeat reads.
type hbFields struct {
	n   int
	val [hbFieldCount][]byte
	has [hbFieldCount]bool
}

// heartbeatFields reads an HGETALL reply without building a map of strings
// (10,000 heartbeats are 10,000 maps per poll otherwise). A reply
// redis.StringMap would refuse is refused with its error.
func heartbeatFields(v any) (hbFields, error) {
	var f hbFields
	vs, ok := v.([]any)
	if ok && len(vs)%2 == 0 {
		for i := 0; i < len(vs); i += 2 {
			k, ok1 := vs[i].([]byte)
			val, ok2 := vs[i+1].([]byte)
			if !ok1 || !ok2 {
				return heartbeatFieldsSlow(v)
			}
			f.n++
			if idx := hbFieldIndex(k); idx >= 0 {
				f.val[idx], f.has[idx] = val, true
			}
		}
		return f, nil
	}
	return heartbeatFieldsSlow(v)
}

// heartbeatFieldsSlow is heartbeatFields through redis.StringMap, for any
// reply that is not a flat list of bulk strings.
func heartbeatFieldsSlow(v any) (hbFields, error) {
	var f hbFields
	m, err := redis.StringMap(v, nil)
	if err != nil {
		return f, err
	}
	for k, val := range m {
		f.n++
		if idx := hbFieldIndex([]byte(k)); idx >= 0 {
			f.val[idx], f.has[idx] = []byte(val), true
		}
	}
	return f, nil
}

// hbFieldIndex is the index in hbFields of a field parseHeartbeat reads, -1
// for any other.
func hbFieldIndex(name []byte) int {
	switch string(name) {
	case "heartbeat_at":
		return hbAt
	case "started_at":
		return hbStarted
	case "host":
		return hbHost
	case "pid":
		return hbPID
	case "concurrency":
		return hbConcurrency
	case "job_names":
		return hbJobNames
	case "worker_ids":
		return hbWorkerIDs
	}
	return -1
}
