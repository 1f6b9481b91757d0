// The reads that tell which build wrote a namespace (model.JudgeVariant):
// a few fixed keys of Harbor's, a bounded SCAN for unique keys and their
// values, the first and last job of each queue, in-progress list and job
// set, and, in a namespace without gocraft/work keys, a bounded SCAN for
// any key under it. About a hundred commands on a large namespace, for the
// snapshot command only, never for the screen's polls.

package redisq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// harborSuffixes are keys Harbor's job service keeps beside gocraft/work's
// under the same namespace (its src/jobservice/common/rds/keys.go).
var harborSuffixes = []string{"period:policies", "last_periodic_enqueue_h", "job_track:inprogress", "hook_events", "status_change_events"}

// variantScanCalls bounds each SCAN of the variant reads; variantSample
// bounds the keys and jobs each looks at.
const (
	variantScanCalls = 5
	variantSample    = 50
)

// ReadVariant reads the evidence of which build wrote snap's namespace and
// judges it.
func ReadVariant(ctx context.Context, conn redis.Conn, keys Keys, snap *model.Snapshot) (model.Variant, error) {
	ev := model.VariantEvidence{Gocraft: !model.EmptyNamespace(snap)}
	cmds := make([]cmd, len(harborSuffixes))
	for i, s := range harborSuffixes {
		cmds[i] = cmd{"EXISTS", []any{keys.Prefix() + s}}
	}
	rs, err := pipeline(ctx, conn, cmds)
	if err != nil {
		return model.Variant{}, fmt.Errorf("read variant: %w", err)
	}
	for i, r := range rs {
		n, err := redis.Int(r.v, r.err)
		if err != nil {
			return model.Variant{}, fmt.Errorf("read variant: %w", err)
		}
		if n > 0 {
			ev.HarborKeys = append(ev.HarborKeys, keys.Prefix()+harborSuffixes[i])
		}
	}
	if !ev.Gocraft {
		found, err := scanSome(ctx, conn, escapeGlob(keys.Prefix())+"*", 3)
		if err != nil {
			return model.Variant{}, err
		}
		ev.OtherKeys = found
		return model.JudgeVariant(ev), nil
	}
	if err := jobsEvidence(ctx, conn, keys, snap, &ev); err != nil {
		return model.Variant{}, err
	}
	uniques, err := scanSome(ctx, conn, escapeGlob(keys.Prefix())+"unique:*", 5)
	if err != nil {
		return model.Variant{}, err
	}
	for _, k := range uniques {
		v, err := redis.Bytes(redis.DoContext(conn, ctx, "GET", k))
		var re redis.Error
		if errors.Is(err, redis.ErrNil) || errors.As(err, &re) {
			continue
		}
		if err != nil {
			return model.Variant{}, fmt.Errorf("read variant: %w", err)
		}
		if f, _ := model.ParseJobFields(v); f != nil && f.ID != "" {
			ev.UniqueValueJob = k
			break
		}
	}
	return model.JudgeVariant(ev), nil
}

// jobsEvidence looks at the first and last job of each queue, in-progress
// list and job set for unique jobs with and without unique_key.
func jobsEvidence(ctx context.Context, conn redis.Conn, keys Keys, snap *model.Snapshot, ev *model.VariantEvidence) error {
	look := func(key string, raw []byte) {
		f, _ := model.ParseJobFields(raw)
		switch {
		case f == nil:
		case f.UniqueKey != "" && ev.UniqueKeyField == "":
			ev.UniqueKeyField = key
		case f.Unique && f.UniqueKey == "" && ev.NoUniqueKeyField == "":
			ev.NoUniqueKeyField = key
		}
	}
	lists := variantLists(keys, snap)
	// The first and last job of each list, then of each set, in one round
	// trip, looked at in that order.
	var cmds []cmd
	for _, l := range lists {
		for _, i := range []int{0, -1} {
			cmds = append(cmds, cmd{"LINDEX", []any{l, i}})
		}
	}
	sets := []string{keys.Scheduled(), keys.Retry(), keys.Dead()}
	for _, set := range sets {
		for _, r := range [][2]int{{0, 0}, {-1, -1}} {
			cmds = append(cmds, cmd{"ZRANGE", []any{set, r[0], r[1]}})
		}
	}
	rs, err := pipeline(ctx, conn, cmds)
	if err != nil {
		return fmt.Errorf("read variant: %w", err)
	}
	for i, l := range lists {
		for j := range 2 {
			r := rs[2*i+j]
			raw, err := redis.Bytes(r.v, r.err)
			if err == nil {
				look(l, raw)
			} else if !isMissOrWrongType(err) {
				return fmt.Errorf("read variant: %w", err)
			}
		}
	}
	rs = rs[2*len(lists):]
	for i, set := range sets {
		for j := range 2 {
			r := rs[2*i+j]
			v, err := redis.ByteSlices(r.v, r.err)
			if err != nil && !isMissOrWrongType(err) {
				return fmt.Errorf("read variant: %w", err)
			}
			for _, raw := range v {
				look(set, raw)
			}
		}
	}
	return nil
}

// variantLists are the lists whose first and last job jobsEvidence looks
// at: the queues that hold jobs, then the pools' in-progress lists that
// do, variantSample at most. The in-progress keys are built only up to
// the sample: a namespace of 1,000 pools x 20 job types has 20,000 of
// them, and building them all made 1.2 MB of garbage (and as many fresh
// pages to touch) for the 50 kept.
func variantLists(keys Keys, snap *model.Snapshot) []string {
	lists := make([]string, 0, variantSample)
	for _, jt := range snap.JobTypes {
		if len(lists) == variantSample {
			return lists
		}
		if jt.Queued > 0 {
			lists = append(lists, keys.Queue(jt.Name))
		}
	}
	for _, p := range snap.Pools {
		for job, n := range p.InProgress {
			if len(lists) == variantSample {
				return lists
			}
			if n > 0 {
				lists = append(lists, keys.InProgress(job, p.ID))
			}
		}
	}
	return lists
}

func isMissOrWrongType(err error) bool {
	var re redis.Error
	return errors.Is(err, redis.ErrNil) || errors.As(err, &re)
}

// scanSome returns up to max keys matching pattern, from at most
// variantScanCalls SCAN calls.
func scanSome(ctx context.Context, conn redis.Conn, pattern string, max int) ([]string, error) {
	return scanPaced(ctx, conn, pattern, max, variantScanCalls, nil)
}

// scanPaced returns up to max keys matching pattern, from at most calls
// SCAN calls, waiting pause(a call's duration) after each when pause is not
// nil.
func scanPaced(ctx context.Context, conn redis.Conn, pattern string, max, calls int, pause func(time.Duration) time.Duration) ([]string, error) {
	var out []string
	cursor := "0"
	for n := 0; n < calls && len(out) < max; n++ {
		start := time.Now()
		v, err := redis.Values(redis.DoContext(conn, ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", 1000))
		if err != nil {
			return nil, fmt.Errorf("read variant: scan %s: %w", pattern, err)
		}
		if len(v) != 2 {
			return nil, fmt.Errorf("read variant: scan %s: unexpected reply", pattern)
		}
		cursor, _ = redis.String(v[0], nil)
		ks, _ := redis.Strings(v[1], nil)
		for _, k := range ks {
			if len(out) < max {
				out = append(out, k)
			}
		}
		if cursor == "0" {
			break
		}
		if pause != nil {
			if err := sleepCtx(ctx, pause(time.Since(start))); err != nil {
				return nil, fmt.Errorf("read variant: %w", err)
			}
		}
	}
	return out, nil
}

// Variant reads the evidence of snap's variant on a connection of its own.
func (c *Client) Variant(ctx context.Context, snap *model.Snapshot) (model.Variant, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return model.Variant{}, c.wrap(err)
	}
	defer conn.Close()
	v, err := ReadVariant(ctx, conn, c.keys, snap)
	return v, c.wrap(err)
}
