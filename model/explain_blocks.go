// Blocks: the causes of Explain that hold a job type's jobs back and that
// the snapshot alone shows, for every job type at once. The screen marks
// its Job types rows with them at every poll, so they are found from one
// pass over the pools, not one per job type.

package model

// IsBlock reports whether kind is a cause Blocks reports: a lock at
// max_concurrency (held by dead pools, drifted or saturated), jobs in dead
// pools' or orphaned in-progress lists.
func IsBlock(kind string) bool {
	switch kind {
	case CauseDeadPoolLocks, CauseLockDrift, CauseSaturated, CauseHeldDead, CauseOrphaned:
		return true
	}
	return false
}

// Blocks returns, by job name, the causes of each job type of snap that
// IsBlock holds, in Explain's order and words (the causes Explain gives the
// type, with these kinds alone); job types without one are absent. It
// costs O(pools + job types + the lock_info fields of the types at their
// cap + orphans), where explaining each type would cost O(pools) each.
func Blocks(snap *Snapshot) map[string][]Cause {
	ix := newExplainIndex(snap)
	out := map[string][]Cause{}
	for i := range snap.JobTypes {
		jt := &snap.JobTypes[i]
		if _, done := out[jt.Name]; done {
			continue // Explain takes the first of a name
		}
		var causes []Cause
		for _, c := range [...]*Cause{explainLock(snap, ix, jt), explainHeld(ix, jt), explainOrphaned(ix, jt)} {
			if c != nil {
				causes = append(causes, *c)
			}
		}
		if len(causes) > 0 {
			out[jt.Name] = causes
		}
	}
	return out
}

// explainIndex is what the checks of Explain look up in a snapshot, found
// in one pass over its pools and orphans.
type explainIndex struct {
	workers []Worker
	// dead are the dead pools in the snapshot's order, deadIDs their IDs.
	dead    []*Pool
	deadIDs map[string]bool
	// orphans are the non-empty orphaned lists by job name, in the
	// snapshot's order.
	orphans map[string][]*InProgressList
	// busy are BusyWorkers(workers), sorted on first use.
	busy       []Worker
	busySorted bool
}

func newExplainIndex(snap *Snapshot) *explainIndex {
	ix := &explainIndex{workers: snap.Workers, deadIDs: map[string]bool{}, orphans: map[string][]*InProgressList{}}
	for i := range snap.Pools {
		if p := &snap.Pools[i]; p.Status == StatusDead {
			ix.dead = append(ix.dead, p)
			ix.deadIDs[p.ID] = true
		}
	}
	for i := range snap.Orphans {
		if o := &snap.Orphans[i]; o.Length > 0 {
			ix.orphans[o.JobName] = append(ix.orphans[o.JobName], o)
		}
	}
	return ix
}

// busyWorkers is BusyWorkers of the snapshot's workers, sorted once.
func (ix *explainIndex) busyWorkers() []Worker {
	if !ix.busySorted {
		ix.busy, ix.busySorted = BusyWorkers(ix.workers), true
	}
	return ix.busy
}
