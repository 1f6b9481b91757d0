// Leaked in-progress entries: stand-ins that gocraft/work's master (and
// the gojek/work fork) leave behind in an in-progress list. With
// EnqueueUniqueByKey the unique key holds the whole job and a refused
// enqueue rewrites it with a new job (new id, new arguments); the worker runs
// the job it reads from the key and, when it ends, LREMs that job's bytes
// from its in-progress list, which holds the queue's stand-in instead.
// The stand-in stays while lock and lock_info go back down. It is not
// drift (lock and lock_info are right: nothing runs) and no job waits behind
// it: the job it stood for has run, or waits under its unique key.

package model

import (
	"fmt"
	"strings"
)

// FindingLeaked is an in-progress entry whose job has already ended (see
// LeakedEntry). It does not make a job type drift, and it does not count in
// HasProblems: nothing is lost and nothing is blocked by it.
const FindingLeaked = "leaked_in_progress"

// LeakedEntry is one leaked stand-in.
type LeakedEntry struct {
	// Key is the in-progress list, PoolID and JobName parsed from it.
	Key     string `json:"key"`
	PoolID  string `json:"pool_id"`
	JobName string `json:"job_name"`
	// Raw is the entry's exact bytes; ID its `id`; UniqueKey its
	// `unique_key`.
	Raw       []byte `json:"-"`
	ID        string `json:"id"`
	UniqueKey string `json:"unique_key"`
	// Holder is what the unique key holds now: the id of the job it names
	// (the one that will run), "" when the key is absent (the job that ran
	// took it) or holds no job.
	Holder string `json:"unique_key_holds,omitempty"`
}

// ClassifyLeaked picks the leaked entries of one pool's in-progress list of
// one job type. entries are the list's elements; counted is the pool's
// lock_info field for the type (how many of the type's jobs the pool says
// it runs; 0 when absent); busy holds the job ids the pool's busy workers
// report running.
//
// An entry is leaked when it carries a `unique_key` (only master and gojek
// write one) and no busy worker of the pool runs its id, and the list holds
// more entries than the pool counts. A worker that runs the job read from
// the unique key runs another id than its stand-in's: its stand-in is
// counted in lock_info, so when more entries qualify than the list has in
// excess, which of them is running cannot be told, and none is returned.
// It returns the indexes of the leaked entries.
func ClassifyLeaked(entries [][]byte, counted int64, busy map[string]bool) []int {
	excess := int64(len(entries)) - max(counted, 0)
	if excess <= 0 {
		return nil
	}
	var out []int
	for i, raw := range entries {
		f, _ := ParseJobFields(raw)
		if f == nil || f.UniqueKey == "" || f.ID == "" || busy[f.ID] {
			continue
		}
		out = append(out, i)
	}
	if int64(len(out)) > excess {
		return nil
	}
	return out
}

// LeakedCount is how many leaked entries the snapshot found of a job type,
// or of one pool's list of it when pool is not "".
func LeakedCount(leaked []LeakedEntry, job, pool string) int64 {
	var n int64
	for _, l := range leaked {
		if l.JobName == job && (pool == "" || l.PoolID == pool) {
			n++
		}
	}
	return n
}

// Why says, in words, why an entry is leaked and what happened to its job.
func (l LeakedEntry) Why() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stand-in %s of %s stayed in pool %s's in-progress list after its job ended (no worker runs it, lock_info does not count it)", l.ID, l.JobName, l.PoolID)
	if l.Holder != "" && l.Holder != l.ID {
		fmt.Fprintf(&b, "; its unique key holds job %s, which will run", l.Holder)
	} else if l.Holder == "" {
		b.WriteString("; its unique key is gone: the job read from it has run")
	}
	return b.String()
}

// LeakedFindings are the findings of the leaked entries, one per list.
func LeakedFindings(leaked []LeakedEntry) []Finding {
	var out []Finding
	for i := 0; i < len(leaked); {
		j := i
		for j < len(leaked) && leaked[j].Key == leaked[i].Key {
			j++
		}
		l := leaked[i]
		detail := fmt.Sprintf("%d entries of %s in pool %s's in-progress list belong to jobs that already ran (gocraft/work master's EnqueueUniqueByKey leaves them): they hold no slot; remove them with the remove-leaked command", j-i, l.JobName, l.PoolID)
		if j-i == 1 {
			detail = fmt.Sprintf("1 entry (%s) of %s in pool %s's in-progress list belongs to a job that already ran (gocraft/work master's EnqueueUniqueByKey leaves it): it holds no slot; remove it with the remove-leaked command", l.ID, l.JobName, l.PoolID)
		}
		out = append(out, Finding{Kind: FindingLeaked, Subject: l.Key, Detail: detail})
		i = j
	}
	return out
}
