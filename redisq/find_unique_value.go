package redisq

// This file owns find's look into the unique keys' values. gocraft/work
// master and gojek/work keep the whole job of EnqueueUniqueByKey in its
// unique key, and a refused enqueue rewrites it with its own job (a new id,
// new arguments): that job is in no queue, only in the key, and it is the
// one a worker runs when it takes the stand-in. find by id looks there
// too. A v0.5.1 key holds "1", never a job.

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// findUniqueValues reads the values of the namespace's unique keys that
// batches hands it (one pipeline a batch), and reports those holding a job
// with one of f's ids that f's query matches, unless found already has the
// same key and id.
func findUniqueValues(ctx context.Context, c redis.Conn, keys Keys, f FindSpec, found []Place, batches keyBatches) ([]Place, error) {
	have := map[[2]string]bool{}
	for _, p := range found {
		have[[2]string{p.Key, p.ID}] = true
	}
	mayHold := f.mayHold()
	var out []Place
	err := batches(func(ks []string) error {
		cmds := make([]cmd, 0, 2*len(ks))
		for _, k := range ks {
			cmds = append(cmds, cmd{name: "GET", args: []interface{}{k}}, cmd{name: "TTL", args: []interface{}{k}})
		}
		replies, err := pipeline(ctx, c, cmds)
		if err != nil {
			return fmt.Errorf("find: read unique keys: %w", err)
		}
		for i, k := range ks {
			raw, ok := replies[2*i].v.([]byte)
			if !ok || len(raw) == 0 || raw[0] != '{' || !mayHold(raw) {
				continue
			}
			j, _ := model.ParseJobFields(raw)
			if j == nil || j.ID == "" || !f.matchID(j) || !f.Query.MatchQueueJob(j) || have[[2]string{k, j.ID}] {
				continue
			}
			ttl, _ := replies[2*i+1].v.(int64)
			out = append(out, Place{Kind: PlaceUnique, Key: k, ID: j.ID, Name: j.Name, TTL: ttl, InValue: true, job: j})
		}
		return nil
	})
	return out, err
}

// keyBatches hands keys to each, a batch at a time, until each fails.
type keyBatches func(each func([]string) error) error

// keyList hands the keys found already, keyScanCount at a time.
func keyList(ks []string) keyBatches {
	return func(each func([]string) error) error {
		for lo := 0; lo < len(ks); lo += keyScanCount {
			if err := each(ks[lo:min(lo+keyScanCount, len(ks))]); err != nil {
				return err
			}
		}
		return nil
	}
}

// scanUniqueKeys walks the namespace's unique keys with SCAN, pausing
// after each call when f is paced.
func scanUniqueKeys(ctx context.Context, c redis.Conn, keys Keys, f FindSpec) keyBatches {
	return func(each func([]string) error) error {
		if err := scanKeys(ctx, c, keys.UniquePattern(), f.Paced, each); err != nil {
			return fmt.Errorf("find: %w", err)
		}
		return nil
	}
}
