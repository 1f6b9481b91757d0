package redisq

// This file owns find's own scan of the unique keys: a key whose job is in
// no other place (the worker rebuilt a different key from the decoded
// arguments and never deleted this one, or the job was removed by hand)
// still blocks a new EnqueueUnique of the same arguments for 24 hours. Its
// name and arguments are in the key (<ns>:unique:<name>:<args JSON>\n), so
// a query on names and arguments finds it; an id cannot (gocraft/work
// v0.5.1 stores "1"). The scan walks the keyspace with SCAN MATCH, paced
// like the orphan scan.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// UniqueScanCount is the COUNT hint of each SCAN of the unique-key scan.
const UniqueScanCount = 1000

// FindProgress is how far find's scan of the unique keys has got: the
// keys SCAN went over (about), of the keys in the database (DBSIZE).
type FindProgress struct {
	Scanned, Keys int64
}

// scansUnique reports whether find scans the unique keys for f: a query
// by name and arguments only (the terms a key can match), no ids.
func (f FindSpec) scansUnique() bool {
	q := f.Query
	if len(f.IDs) > 0 || q.Empty() || !f.looks(PlaceUnique) {
		return false
	}
	return len(q.Errs) == 0 && len(q.ErrREs) == 0 && len(q.IDs) == 0 && q.MinFails < 0 && q.MaxFails < 0 && !q.HasTime() &&
		(len(q.Jobs) > 0 || len(q.NameParts) > 0 || len(q.Args) > 0 || len(q.Paths) > 0)
}

// findUniqueKeys scans the unique keys of the namespace for those whose
// name and arguments the query matches, leaving out those in seen (found
// through their job). Each SCAN call is followed by a pause of
// model.ScanPause(its duration); progress, when not nil, is told after
// each call.
func findUniqueKeys(ctx context.Context, c redis.Conn, keys Keys, f FindSpec, seen map[string]bool) ([]Place, error) {
	prefix := keys.Prefix() + "unique:"
	pattern := escapeGlob(prefix) + "*"
	if name := f.Query.JobName(); name != "" {
		pattern = escapeGlob(prefix+name+":") + "*"
	}
	total, err := redis.Int64(redis.DoContext(c, ctx, "DBSIZE"))
	if err != nil {
		return nil, fmt.Errorf("find: DBSIZE: %w", err)
	}
	var out []Place
	var scanned int64
	cursor := "0"
	for {
		start := time.Now()
		v, err := redis.Values(redis.DoContext(c, ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", UniqueScanCount))
		if err != nil {
			return nil, fmt.Errorf("find: scan %s: %w", pattern, err)
		}
		var ks []string
		if _, err := redis.Scan(v, &cursor, &ks); err != nil {
			return nil, fmt.Errorf("find: scan %s: %w", pattern, err)
		}
		var hits []string
		for _, k := range ks {
			name, args, ok := parseUniqueKey(strings.TrimPrefix(k, prefix))
			if !ok || seen[k] || !f.Query.MatchFields(&model.JobFields{Name: name, Args: args}) {
				continue
			}
			seen[k] = true
			hits = append(hits, k)
		}
		for _, k := range hits {
			ttl, err := redis.Int64(redis.DoContext(c, ctx, "TTL", k))
			if err != nil {
				return nil, fmt.Errorf("find: TTL %q: %w", k, err)
			}
			if ttl == -2 {
				continue // gone since the SCAN
			}
			name, _, _ := parseUniqueKey(strings.TrimPrefix(k, prefix))
			out = append(out, Place{Kind: PlaceUnique, Key: k, Name: name, TTL: ttl})
		}
		scanned += UniqueScanCount
		if f.Progress != nil {
			f.Progress(FindProgress{Scanned: min(scanned, total), Keys: total})
		}
		if cursor == "0" {
			return out, nil
		}
		if f.Paced {
			if err := sleepCtx(ctx, model.ScanPause(time.Since(start))); err != nil {
				return nil, fmt.Errorf("find: %w", err)
			}
		}
	}
}

// parseUniqueKey splits what follows <ns>:unique: into the job name and
// the arguments' JSON: the name ends at the first ":{" (the arguments of
// EnqueueUnique are an object), or at the last byte for a job enqueued
// with nil arguments (the key ends in ":"). The trailing newline of Go's
// encoder is dropped.
func parseUniqueKey(rest string) (name string, args []byte, ok bool) {
	if i := strings.Index(rest, ":{"); i >= 0 {
		return rest[:i], []byte(strings.TrimSuffix(rest[i+1:], "\n")), true
	}
	if n, found := strings.CutSuffix(rest, ":"); found {
		return n, nil, true
	}
	return "", nil, false
}
