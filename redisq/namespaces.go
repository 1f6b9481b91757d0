// The search for namespaces: which namespaces of a database hold the keys
// every gocraft/work namespace has, found with a bounded, paced SCAN, for
// the finding of an empty namespace.

package redisq

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// NamespaceSearchMaxKeys is the largest keyspace (DBSIZE) the namespace
// search walks; a larger one is not searched, and the finding says so.
// SCAN with the search's MATCH costs Redis about 1 µs a key
// (TestNamespaceSearchCost measures it: 0.9 to 1.2 µs on a busy 2-CPU
// machine), so the bound keeps a whole search within about 300 ms of
// Redis time, spread over about 250 calls with pauses between them.
const NamespaceSearchMaxKeys = 250_000

// namespaceSearchCount is the COUNT hint of each SCAN call.
const namespaceSearchCount = 1000

// namespaceSearchPattern lets through the keys ending in "_jobs" or
// "_pools" (known_jobs, worker_pools, and a few others that
// model.NamespaceOfKey then refuses), so that Redis, not the network,
// filters nearly every key out.
const namespaceSearchPattern = "*_[jp]o*s"

// FindNamespaces searches the connection's database for the namespaces
// that hold `<ns>:known_jobs` or `<ns>:worker_pools`. A keyspace larger
// than maxKeys (NamespaceSearchMaxKeys when not positive) is not walked
// (Skipped). After each SCAN call
// it waits pause(the call's duration) (model.ScanPause), as the orphan scan
// does; it stops after the calls a keyspace of maxKeys keys
// takes, twice over (Partial), since SCAN may return fewer keys a call
// than its COUNT.
func FindNamespaces(ctx context.Context, c redis.Conn, maxKeys int64, pause func(time.Duration) time.Duration) (model.NamespaceSearch, error) {
	if maxKeys <= 0 {
		maxKeys = NamespaceSearchMaxKeys
	}
	out := model.NamespaceSearch{Namespaces: []string{}} // an array in JSON, also when none is found
	n, err := redis.Int64(redis.DoContext(c, ctx, "DBSIZE"))
	if err != nil {
		return out, fmt.Errorf("search for namespaces: %w", err)
	}
	if n > maxKeys {
		out.Skipped = fmt.Sprintf("the database holds %d keys, more than the %d the search walks", n, maxKeys)
		return out, nil
	}
	maxCalls := int(2*maxKeys/namespaceSearchCount) + 1
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls == maxCalls {
			out.Partial = true
			break
		}
		start := time.Now()
		r, err := redis.DoContext(c, ctx, "SCAN", cursor, "MATCH", namespaceSearchPattern, "COUNT", namespaceSearchCount)
		if err != nil {
			return out, fmt.Errorf("search for namespaces: %w", err)
		}
		next, keys, err := scanReply(r)
		if err != nil {
			return out, fmt.Errorf("search for namespaces: unexpected reply: %w", err)
		}
		for _, k := range keys {
			if ns, ok := model.NamespaceOfKey(string(k.([]byte))); ok { // scanReply checked the type
				out.Namespaces = append(out.Namespaces, ns)
			}
		}
		if cursor = next; cursor == "0" {
			break
		}
		if err := sleepCtx(ctx, pause(time.Since(start))); err != nil {
			return out, err
		}
	}
	out.SortNamespaces()
	return out, nil
}

// FindNamespaces runs FindNamespaces, paced by model.ScanPause, on a
// connection of its own.
func (c *Client) FindNamespaces(ctx context.Context) (model.NamespaceSearch, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return model.NamespaceSearch{}, c.wrap(err)
	}
	defer conn.Close()
	s, err := FindNamespaces(ctx, conn, 0, model.ScanPause)
	if err != nil {
		return s, c.wrap(err)
	}
	if s.Skipped == "" {
		// As bounded and paced as the search: a few keys are enough.
		s.Foreign, err = scanPaced(ctx, conn, escapeGlob(c.keys.Prefix())+"*", 3, int(2*NamespaceSearchMaxKeys/namespaceSearchCount)+1, model.ScanPause)
	}
	return s, c.wrap(err)
}
