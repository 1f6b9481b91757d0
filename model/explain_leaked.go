package model

import "fmt"

// CauseLeaked: in-progress entries of the type are leaked stand-ins
// (see LeakedEntry): they show as in progress while nothing runs in them.
const CauseLeaked = "leaked_in_progress"

// explainLeaked says which in-progress entries of the type hold no slot,
// and what their unique keys say of the jobs they stood for.
func explainLeaked(snap *Snapshot, jt *JobType) *Cause {
	var mine []LeakedEntry
	for _, l := range snap.Leaked {
		if l.JobName == jt.Name {
			mine = append(mine, l)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	c := &Cause{Kind: CauseLeaked,
		Verdict: fmt.Sprintf("%s of %s's in progress %d hold no slot: nothing runs in them", Plural(len(mine), "leaked entry", "leaked entries"), jt.Name, jt.InProgress),
		Fix:     fixWords([]string{"remove-leaked"}, jt.Name)}
	for i, l := range mine {
		if i == explainListMax {
			c.Evidence = append(c.Evidence, fmt.Sprintf("and %d more", len(mine)-i))
			break
		}
		c.Evidence = append(c.Evidence, l.Why())
	}
	c.Evidence = append(c.Evidence, fmt.Sprintf("lock %d and lock_info total %d do not count them: gocraft/work master's worker removed the job it read from the unique key, not this stand-in", jt.Lock, jt.LockInfoTotal))
	return c
}
