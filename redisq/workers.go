// Workers: every worker a heartbeat names and its observation hash
// `<ns>:worker:<worker>`, read pipelined (HGETALL each), parsed without a
// map per worker.

package redisq

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

// ReadWorkers reads the observation of every worker the pools' heartbeats
// name, in one round trip, and sets their running times from now (Redis's
// clock). The snapshot does the same as one of its steps; this is for a
// read that has the pools already.
func ReadWorkers(ctx context.Context, conn redis.Conn, keys Keys, pools []model.Pool, now time.Time) ([]model.Worker, error) {
	ws := poolWorkers(pools)
	if len(ws) == 0 {
		return ws, nil
	}
	sent, err := sendObservations(conn, keys, ws)
	if err != nil {
		drain(ctx, conn, sent)
		return nil, err
	}
	if err := conn.Flush(); err != nil {
		return nil, fmt.Errorf("send to redis: %w", err)
	}
	if err := readObservations(ctx, conn, keys, ws); err != nil {
		return nil, err
	}
	model.AnalyzeWorkers(ws, now)
	return ws, nil
}

// poolWorkers lists the workers of every pool with a heartbeat, dead pools
// included (their busy workers' observations outlive them), in pool order
// and then as the heartbeat lists them: idle until their observation is
// read.
func poolWorkers(pools []model.Pool) []model.Worker {
	n := 0
	for _, p := range pools {
		if p.Heartbeat != nil {
			n += len(p.Heartbeat.WorkerIDs)
		}
	}
	// The two fields are set in place: appending a whole Worker (160
	// bytes, seven pointers) copies it with a bulk write barrier while the
	// collector runs, which it does here in a one-shot snapshot (10,000
	// workers: about 3 ms of the command's CPU).
	ws := make([]model.Worker, n)
	i := 0
	for _, p := range pools {
		if p.Heartbeat == nil {
			continue
		}
		for _, id := range p.Heartbeat.WorkerIDs {
			ws[i].WorkerID, ws[i].PoolID = id, p.ID
			i++
		}
	}
	return ws
}

// workerKeyPrefix is what an observation key is made of before the worker
// ID.
func workerKeyPrefix(keys Keys) string { return keys.Prefix() + "worker:" }

// sendObservations sends HGETALL of every worker's observation without
// flushing; it returns how many were sent.
func sendObservations(conn redis.Conn, keys Keys, ws []model.Worker) (int, error) {
	ids := make([]string, len(ws))
	for i := range ws {
		ids[i] = ws[i].WorkerID
	}
	kb := newKeyBuf(workerKeyPrefix(keys), ids, "")
	for i, id := range ids {
		if err := conn.Send("HGETALL", kb.arg(id)...); err != nil {
			return i, fmt.Errorf("send HGETALL: %w", err)
		}
	}
	return len(ids), nil
}

// readObservations reads the replies of sendObservations into ws, reading
// all of them before it fails on one that makes the read untrustworthy
// (see fatalReply).
func readObservations(ctx context.Context, conn redis.Conn, keys Keys, ws []model.Worker) error {
	const chunk = 1024
	buf := make([]reply, min(len(ws), chunk))
	var fatal error
	for start := 0; start < len(ws); start += chunk {
		r := buf[:min(chunk, len(ws)-start)]
		if err := receiveInto(ctx, conn, r); err != nil {
			drain(ctx, conn, len(ws)-start-len(r))
			return err
		}
		for i := range r {
			w := &ws[start+i]
			if fatal == nil {
				fatal = fatalReply(r[i], workerKeyPrefix(keys)+w.WorkerID)
			}
			parseObservation(r[i], w)
		}
	}
	return fatal
}

// The observation fields gocraft/work writes.
const (
	obsJobName = iota
	obsJobID
	obsStartedAt
	obsArgs
	obsCheckin
	obsCheckinAt
	obsFieldCount
)

func obsFieldIndex(name []byte) int {
	switch string(name) {
	case "job_name":
		return obsJobName
	case "job_id":
		return obsJobID
	case "started_at":
		return obsStartedAt
	case "args":
		return obsArgs
	case "checkin":
		return obsCheckin
	case "checkin_at":
		return obsCheckinAt
	}
	return -1
}

// parseObservation reads an HGETALL of an observation into w: busy when
// the hash has any field (upstream's rule), idle when it is missing. A
// hash of the wrong type or an unreadable number is a warning on w.
func parseObservation(r reply, w *model.Worker) {
	key := "observation"
	if r.err != nil {
		w.Warnings = append(w.Warnings, fmt.Sprintf("%s: %v", key, r.err))
		return
	}
	vs, ok := r.v.([]any)
	if !ok || len(vs)%2 != 0 {
		w.Warnings = append(w.Warnings, fmt.Sprintf("%s: unexpected reply %T", key, r.v))
		return
	}
	if len(vs) == 0 {
		return
	}
	var val [obsFieldCount][]byte
	var has [obsFieldCount]bool
	for i := 0; i < len(vs); i += 2 {
		k, ok1 := vs[i].([]byte)
		v, ok2 := vs[i+1].([]byte)
		if !ok1 || !ok2 {
			w.Warnings = append(w.Warnings, fmt.Sprintf("%s: unexpected reply of %T and %T", key, vs[i], vs[i+1]))
			return
		}
		if idx := obsFieldIndex(k); idx >= 0 {
			val[idx], has[idx] = v, true
		}
	}
	w.Busy = true
	w.JobName = string(val[obsJobName])
	w.JobID = string(val[obsJobID])
	w.Args = string(val[obsArgs])
	w.Checkin, w.HasCheckin = string(val[obsCheckin]), has[obsCheckin]
	num := func(field int, name string, dst *int64) {
		if !has[field] {
			return
		}
		n, err := parseIntBytes(val[field])
		if err != nil {
			w.Warnings = append(w.Warnings, fmt.Sprintf("%s %s %q is not a whole number", key, name, truncate(string(val[field]), 40)))
			return
		}
		*dst = n
	}
	num(obsStartedAt, "started_at", &w.StartedAt)
	num(obsCheckinAt, "checkin_at", &w.CheckinAt)
}
