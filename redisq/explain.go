// The facts explain reads beside the snapshot: the soonest members of the
// retry and scheduled sets, the recent deaths, and one job type's unique
// keys.

package redisq

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

// ExplainSetLimit is how many members of the retry and scheduled sets, and
// how many recent deaths, explain reads.
const ExplainSetLimit = 1000

// ExplainDeadWindow is how far back explain looks for deaths.
const ExplainDeadWindow = time.Hour

// ReadExplainFacts reads in one round trip the ExplainSetLimit soonest
// members of the retry and scheduled sets and the deaths of the last
// ExplainDeadWindow before now (newest first, at most ExplainSetLimit).
// A set of the wrong type reads as empty.
func ReadExplainFacts(ctx context.Context, conn redis.Conn, keys Keys, now time.Time) (model.ExplainFacts, error) {
	f, err := readExplainSets(ctx, conn, keys)
	if err != nil {
		return f, err
	}
	f.Dead = deadSince(f.Dead, now.Add(-ExplainDeadWindow))
	return f, nil
}

// readExplainSets is ReadExplainFacts without a clock: the latest
// ExplainSetLimit deaths whatever their age. Those of them scored at or
// after a moment are the deaths ZREVRANGEBYSCORE +inf from LIMIT 0
// ExplainSetLimit gives (deadSince keeps them), so the read need not wait
// for Redis's time. (ZREVRANGEBYSCORE rather than ZREVRANGE, which the
// read-only connection's allow-list lacks.)
func readExplainSets(ctx context.Context, conn redis.Conn, keys Keys) (model.ExplainFacts, error) {
	f := model.ExplainFacts{SetLimit: ExplainSetLimit, DeadWindow: ExplainDeadWindow}
	rs, err := pipeline(ctx, conn, []cmd{
		{"ZRANGEBYSCORE", []any{keys.Retry(), "-inf", "+inf", "WITHSCORES", "LIMIT", 0, ExplainSetLimit}},
		{"ZRANGEBYSCORE", []any{keys.Scheduled(), "-inf", "+inf", "WITHSCORES", "LIMIT", 0, ExplainSetLimit}},
		{"ZREVRANGEBYSCORE", []any{keys.Dead(), "+inf", "-inf", "WITHSCORES", "LIMIT", 0, ExplainSetLimit}},
	})
	if err != nil {
		return f, err
	}
	dst := []*[]model.SetJob{&f.Retry, &f.Scheduled, &f.Dead}
	for i, set := range []model.SetName{model.SetRetry, model.SetScheduled, model.SetDead} {
		if isWrongType(rs[i].err) {
			continue
		}
		if err := fatalReply(rs[i], SetKey(keys, set)); err != nil {
			return f, err
		}
		vals, err := redis.Values(rs[i].v, nil)
		if err != nil {
			return f, fmt.Errorf("read %s: %w", SetKey(keys, set), err)
		}
		pairs, err := withScores(vals)
		if err != nil {
			return f, fmt.Errorf("read %s: %w", SetKey(keys, set), err)
		}
		*dst[i] = model.ParseSetJobs(set, pairs)
	}
	return f, nil
}

// deadSince keeps the deaths (newest first) scored at or after from.
func deadSince(dead []model.SetJob, from time.Time) []model.SetJob {
	min := float64(from.Unix())
	for i, sj := range dead {
		if sj.Score < min {
			return dead[:i]
		}
	}
	return dead
}

// UniquePrefix is the prefix of job's unique keys, `<ns>:unique:<job>:`.
func (k Keys) UniquePrefix(job string) string { return k.prefix + "unique:" + job + ":" }

// ScanUniqueKeys walks the keyspace (SCAN MATCH, count keys a call) for the
// unique keys of job and reads their time to live in one more round trip.
// A key whose part after the prefix is neither empty nor a JSON object
// belongs to a job name that continues with ':' and is left out.
func ScanUniqueKeys(ctx context.Context, conn redis.Conn, keys Keys, job string, count int) ([]model.UniqueKey, error) {
	if count <= 0 {
		count = DefaultScanCount
	}
	prefix := keys.UniquePrefix(job)
	pattern := escapeGlob(prefix) + "*"
	var found []string
	seen := map[string]bool{}
	cursor := "0"
	for {
		r, err := redis.DoContext(conn, ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", count)
		if err != nil {
			return nil, fmt.Errorf("scan unique keys of %s: %w", job, err)
		}
		next, ks, err := scanReply(r)
		if err != nil {
			return nil, fmt.Errorf("scan unique keys of %s: %w", job, err)
		}
		for _, k := range ks {
			key := string(k.([]byte))
			rest := strings.TrimPrefix(key, prefix)
			if seen[key] || (rest != "" && !strings.HasPrefix(rest, "{")) {
				continue
			}
			seen[key] = true
			found = append(found, key)
		}
		if next == "0" {
			break
		}
		cursor = next
	}
	if len(found) == 0 {
		return []model.UniqueKey{}, nil
	}
	cmds := make([]cmd, len(found))
	for i, k := range found {
		cmds[i] = cmd{"PTTL", []any{k}}
	}
	rs, err := pipeline(ctx, conn, cmds)
	if err != nil {
		return nil, err
	}
	out := make([]model.UniqueKey, 0, len(found))
	for i, k := range found {
		if err := fatalReply(rs[i], k); err != nil {
			return nil, err
		}
		ms, err := intReply(rs[i])
		if err != nil {
			return nil, fmt.Errorf("read the time to live of %s: %w", k, err)
		}
		switch {
		case ms == -2: // gone since the SCAN
			continue
		case ms < 0:
			out = append(out, model.UniqueKey{Key: k, TTL: -1})
		default:
			out = append(out, model.UniqueKey{Key: k, TTL: time.Duration(ms) * time.Millisecond})
		}
	}
	return out, nil
}

// UniqueKeys runs ScanUniqueKeys on a connection of its own.
func (c *Client) UniqueKeys(ctx context.Context, job string, count int) ([]model.UniqueKey, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	u, err := ScanUniqueKeys(ctx, conn, c.keys, job, count)
	return u, c.wrap(err)
}
