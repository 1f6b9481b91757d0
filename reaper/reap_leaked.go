package reaper

// This file owns the first step of a reap of a pool that holds leaked
// in-progress entries (model.LeakedEntry): they are removed, not requeued.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// removeLeaked runs lua/reap_leaked.lua for the pool's leaked entries. It
// reports whether the reap of the pool ends here (alive again, or gone:
// recorded in pr as the batches would).
func (r *Reaper) removeLeaked(ctx context.Context, conn redis.Conn, pp PoolPlan, head, argv []interface{}, pr *PoolResult) (bool, error) {
	args := []interface{}{len(head) + 2*len(pp.Leaked)}
	args = append(args, head...)
	for _, l := range pp.Leaked {
		args = append(args, l.Key, r.keys.LockInfo(l.JobName))
	}
	args = append(args, argv...)
	for _, l := range pp.Leaked {
		args = append(args, l.Raw)
	}
	v, err := r.eval(ctx, conn, r.scripts.reapLeaked, args)
	if err != nil {
		return false, fmt.Errorf("remove leaked entries: %w", err)
	}
	state, detail, err := scriptHead(v)
	if err != nil {
		return false, fmt.Errorf("remove leaked entries: %w", err)
	}
	if r.notDeadAnymore(pr, state) {
		return true, nil
	}
	switch state {
	case "dead":
	case "error":
		why, _ := redis.String(detail, nil)
		return false, scriptDataError(why)
	default:
		return false, fmt.Errorf("remove leaked entries: unexpected state %q", state)
	}
	if len(v) != 1+len(pp.Leaked) {
		return false, fmt.Errorf("remove leaked entries: reply has %d elements, want %d", len(v), 1+len(pp.Leaked))
	}
	for i, l := range pp.Leaked {
		if n, _ := redis.Int64(v[1+i], nil); n > 0 {
			pr.LeakedRemoved[l.JobName] += n
		}
	}
	return false, nil
}

// writeLeakedReap lists a pool's leaked entries apart in its reap plan,
// and says why they are not requeued.
func writeLeakedReap(b *strings.Builder, pp PoolPlan) {
	if len(pp.Leaked) == 0 {
		return
	}
	fmt.Fprintf(b, "  first remove %s, not requeued:\n", model.Plural(len(pp.Leaked), "leaked entry", "leaked entries"))
	for _, l := range pp.Leaked {
		fmt.Fprintf(b, "    %s of %s: %s\n", textsafe.Clean(l.ID), textsafe.Clean(l.JobName), leakedReason(l))
	}
	b.WriteString("  their jobs already ran (gocraft/work master's EnqueueUniqueByKey left them): requeued, each would run again with its older arguments; --requeue-leaked requeues them anyway\n")
}

// leakedReason is the evidence, in a few words.
func leakedReason(l model.LeakedEntry) string {
	s := "no worker runs it and lock_info does not count it"
	switch {
	case l.Holder == "":
		s += "; its unique key is gone (the job read from it ran)"
	case l.Holder != l.ID:
		s += "; its unique key holds job " + textsafe.Clean(l.Holder) + ", which will run"
	}
	return s
}

// writeLeakedRemoved says how many leaked entries a reap removed.
func writeLeakedRemoved(b *strings.Builder, pr PoolResult) {
	for _, j := range slices.Sorted(maps.Keys(pr.LeakedRemoved)) {
		fmt.Fprintf(b, "  %s: %s removed, not requeued\n", textsafe.Clean(j), model.Plural(pr.LeakedRemoved[j], "leaked entry", "leaked entries"))
	}
}
