// Workers: what each worker of each pool is doing, from its observation
// hash `<ns>:worker:<worker>`, and which jobs have run too long.

package model

import (
	"cmp"
	"slices"
	"time"
)

// DefaultLongAfter is how long a job may run before it is reported as
// long-running.
const DefaultLongAfter = 10 * time.Minute

// Worker is one worker of a pool (an ID in its heartbeat's worker_ids) and
// its observation. gocraft/work writes the observation when the worker
// takes a job and deletes it when the job ends, so a worker without one is
// idle; a busy worker of a pool that died keeps its observation until the
// hash expires (24 h).
type Worker struct {
	WorkerID string
	PoolID   string
	// Busy is set when the observation hash has any field, as upstream's
	// WorkerObservations decides it.
	Busy    bool
	JobName string
	JobID   string
	// StartedAt is the observation's started_at (unix seconds); 0 when it
	// is missing or not a whole number.
	StartedAt int64
	// Running is Redis time minus StartedAt, set by Analyze for busy
	// workers with a StartedAt; nil otherwise.
	Running *time.Duration
	// Args is the observation's args field as written (the job's arguments
	// as JSON); "" when the job has none (gocraft/work writes "").
	Args string
	// Checkin is the text of the handler's last Job.Checkin; HasCheckin
	// tells an empty checkin from none.
	Checkin    string
	HasCheckin bool
	// CheckinAt is the observation's checkin_at (unix seconds); 0 when
	// missing.
	CheckinAt int64
	// Warnings describe an observation that could not be read as expected.
	Warnings []string
}

// LongRunning reports whether the worker is busy with a job that has run
// longer than longAfter.
func (w Worker) LongRunning(longAfter time.Duration) bool {
	return w.Busy && w.Running != nil && *w.Running > longAfter
}

// AnalyzeWorkers sets each busy worker's running time from now (0 for a
// started_at in the future: another host's clock).
func AnalyzeWorkers(ws []Worker, now time.Time) {
	for i := range ws {
		w := &ws[i]
		w.Running = nil
		if w.Busy && w.StartedAt > 0 {
			d := max(now.Sub(time.Unix(w.StartedAt, 0)), 0)
			w.Running = &d
		}
	}
}

// BusyWorkers returns the busy workers, longest-running first (a worker
// whose running time is unknown last), then by pool and worker ID.
func BusyWorkers(ws []Worker) []Worker {
	return sortedWorkers(ws, func(w *Worker) bool { return w.Busy })
}

// sortedWorkers returns the workers keep accepts in BusyWorkers' order. It
// sorts positions and copies each worker once: sorting the structs
// themselves moves far more memory.
func sortedWorkers(ws []Worker, keep func(*Worker) bool) []Worker {
	var idx []int
	for i := range ws {
		if keep(&ws[i]) {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &ws[i], &ws[j]
		switch {
		case a.Running != nil && b.Running == nil:
			return -1
		case a.Running == nil && b.Running != nil:
			return 1
		case a.Running != nil && *a.Running != *b.Running:
			return cmp.Compare(*b.Running, *a.Running)
		}
		return cmp.Or(cmp.Compare(a.PoolID, b.PoolID), cmp.Compare(a.WorkerID, b.WorkerID), cmp.Compare(i, j))
	})
	out := make([]Worker, len(idx))
	for k, i := range idx {
		out[k] = ws[i]
	}
	return out
}
