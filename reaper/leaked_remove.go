package reaper

// This file owns remove-leaked: taking leaked in-progress entries
// (model.LeakedEntry) out of their lists, one atomic script call per entry,
// each journalled so that undo can push it back.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// LeakedPlan is what remove-leaked will remove.
type LeakedPlan struct {
	Namespace string
	Entries   []model.LeakedEntry
}

// NewLeakedPlan is the plan from a snapshot's leaked entries, of the given
// job types (every type when jobs is empty). It is pure.
func NewLeakedPlan(snap *model.Snapshot, jobs []string) LeakedPlan {
	p := LeakedPlan{Namespace: snap.Namespace}
	for _, l := range snap.Leaked {
		if len(jobs) == 0 || containsString(jobs, l.JobName) {
			p.Entries = append(p.Entries, l)
		}
	}
	return p
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// LeakedResult is what remove-leaked did.
type LeakedResult struct {
	Removed int64
	// Gone counts entries no longer leaked when their call ran (removed
	// by someone else, or counted by the pool again): left alone.
	Gone int64
}

// RemoveLeaked removes each entry of the plan in its own script call,
// writing the call's intent to w before it and its outcome after (w nil:
// no journal).
func (r *Reaper) RemoveLeaked(ctx context.Context, plan LeakedPlan, w JournalWriter) (LeakedResult, error) {
	var res LeakedResult
	c, err := r.conn(ctx, "remove-leaked")
	if err != nil {
		return res, err
	}
	defer c.Close()
	for _, l := range plan.Entries {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("remove-leaked: interrupted after %d: %w", res.Removed, err)
		}
		seq := 0
		if w != nil {
			tv, err := redis.Int64s(redis.DoContext(c, ctx, "TIME"))
			if err != nil || len(tv) != 2 {
				return res, fmt.Errorf("remove-leaked: journal: read the time: %w", errOr(err, errors.New("bad reply")))
			}
			if seq, err = w.Intent(journal.Intent{RedisMs: tv[0]*1000 + tv[1]/1000, Items: []journal.Item{{Queue: l.Key, Old: l.Raw, Count: 1}}}); err != nil {
				return res, fmt.Errorf("remove-leaked: journal: %w", err)
			}
		}
		v, err := redis.Values(r.scripts.removeLeaked.DoContext(ctx, c, l.Key, r.keys.LockInfo(l.JobName), l.PoolID, l.Raw))
		var n int64
		if err == nil {
			var status string
			if len(v) > 0 {
				status, _ = redis.String(v[0], nil)
			}
			switch {
			case status == "ok" && len(v) == 2:
				n, _ = redis.Int64(v[1], nil)
			case status == "wrongtype" && len(v) == 2:
				key, _ := redis.String(v[1], nil)
				err = fmt.Errorf("%s: %w", key, ErrWrongType)
			default:
				err = fmt.Errorf("unexpected script reply %v", v)
			}
		}
		if w != nil {
			cm := journal.Commit{Counts: []int64{n}}
			if err != nil {
				cm.Error = err.Error()
			}
			if jerr := w.Commit(seq, cm); jerr != nil && err == nil {
				err = fmt.Errorf("journal: %w", jerr)
			}
		}
		if err != nil {
			return res, fmt.Errorf("remove-leaked %s: %w", l.Key, err)
		}
		if n > 0 {
			res.Removed += n
		} else {
			res.Gone++
		}
	}
	return res, nil
}

// LeakedPlanText is a remove-leaked plan as plain text; every string from
// Redis is cleaned.
func LeakedPlanText(p LeakedPlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Remove-leaked plan for namespace %s:\n", textsafe.Clean(p.Namespace))
	if len(p.Entries) == 0 {
		b.WriteString("  no leaked in-progress entry\n")
		return b.String()
	}
	for _, l := range p.Entries {
		fmt.Fprintf(&b, "\n%s\n  %s of %s, pool %s: %s\n", textsafe.Clean(l.Key), textsafe.Clean(l.ID), textsafe.Clean(l.JobName), textsafe.Clean(l.PoolID), leakedReason(l))
	}
	fmt.Fprintf(&b, "\nTotal: %s removed from their in-progress lists; lock and lock_info unchanged (they never counted them).\n", model.Plural(len(p.Entries), "entry", "entries"))
	b.WriteString("Each is re-checked when removed: one its pool counts again is left alone. `undo` pushes them back.\n")
	return b.String()
}

// RenderLeakedPlan writes LeakedPlanText(p) to w.
func RenderLeakedPlan(w io.Writer, p LeakedPlan) { fmt.Fprint(w, LeakedPlanText(p)) }

// LeakedResultText is what remove-leaked did.
func LeakedResultText(r LeakedResult) string {
	s := fmt.Sprintf("Done: %s removed.\n", model.Plural(r.Removed, "leaked entry", "leaked entries"))
	if r.Gone > 0 {
		s += fmt.Sprintf("%s no longer leaked when removed: left alone.\n", model.Plural(r.Gone, "entry was", "entries were"))
	}
	return s
}
