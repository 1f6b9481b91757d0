// ExplainPool: why a worker pool is late or dead, and what it holds.

package model

import (
	"fmt"
	"sort"
	"time"
)

// PoolExplanation is ExplainPool's answer for one pool ID.
type PoolExplanation struct {
	PoolID string `json:"pool_id"`
	// Running is true when the pool is alive.
	Running bool     `json:"running"`
	Verdict string   `json:"verdict"`
	Facts   []string `json:"facts"`
	Causes  []Cause  `json:"causes"`
}

// ExplainPool explains a pool of the snapshot, or, for an ID not in
// worker_pools, the orphaned in-progress lists it left (snap.Orphans).
func ExplainPool(snap *Snapshot, id string) PoolExplanation {
	e := PoolExplanation{PoolID: id, Causes: []Cause{}}
	p, ok := snap.Pool(id)
	if !ok {
		var keys []string
		for _, o := range snap.Orphans {
			if o.PoolID == id {
				keys = append(keys, o.Key)
			}
		}
		c := Cause{Kind: "not_in_worker_pools", Verdict: fmt.Sprintf("pool %s is not in worker_pools", id)}
		if len(keys) > 0 {
			c.Verdict += fmt.Sprintf(", and %s of it are orphaned", Plural(len(keys), "in-progress list", "in-progress lists"))
			c.Evidence = []string{"lists: " + nameSome(keys)}
			c.Fix = fixWords([]string{"requeue"}, keys...)
		} else {
			c.FixText = "nothing holds it: it stopped cleanly or was reaped"
		}
		e.Causes = append(e.Causes, c)
		e.Verdict = c.Verdict
		return e
	}
	if hb := p.Heartbeat; hb != nil {
		e.Facts = append(e.Facts, fmt.Sprintf("host %s pid %d, %s, started %s ago",
			hb.Host, hb.PID, Plural(hb.Concurrency, "worker", "workers"), FormatAge(max(snap.RedisTime.Sub(time.Unix(hb.StartedAt, 0)), 0))))
		e.Facts = append(e.Facts, "serves "+nameSome(hb.JobNames))
	}
	held := make([]string, 0, len(p.InProgress))
	for job := range p.InProgress {
		held = append(held, job)
	}
	sort.Strings(held)
	for _, job := range held {
		e.Facts = append(e.Facts, fmt.Sprintf("holds %s of %s (lock_info %d)", Plural(p.InProgress[job], "job", "jobs"), job, p.LockInfo[job]))
	}
	age := "heartbeat missing"
	if p.HeartbeatAge != nil {
		age = "last heartbeat " + FormatAge(*p.HeartbeatAge) + " ago"
	}
	switch p.Status {
	case StatusDead:
		c := Cause{Kind: FindingDeadPool, Verdict: fmt.Sprintf("pool %s is dead", id),
			Evidence: []string{deadDetail(*p, snap.DeadAfter)}, Fix: fixWords([]string{"reap"}, id)}
		e.Causes = append(e.Causes, c)
	case StatusLate:
		e.Causes = append(e.Causes, Cause{Kind: FindingLatePool, Verdict: fmt.Sprintf("pool %s is late", id),
			Evidence: []string{age + fmt.Sprintf(" (beats every 5s; dead after %s)", FormatAge(snap.DeadAfter))},
			FixText:  "wait a beat: a pool that misses the cut-off is dead and can be reaped"})
	default:
		e.Running = true
		e.Verdict = fmt.Sprintf("pool %s is alive, %s", id, age)
		return e
	}
	e.Verdict = e.Causes[0].Verdict
	return e
}
