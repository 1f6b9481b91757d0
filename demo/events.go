// The event queue of the simulation: events ordered by time, then by the
// order in which they were scheduled, so one seed replays the same way.

package demo

import (
	"time"
)

// event is one scheduled step of the simulation.
type event struct {
	at  time.Time
	seq uint64
	run func() error
}

// eventQueue orders events by time, then by scheduling order.
type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	n := len(old)
	ev := old[n-1]
	*q = old[:n-1]
	return ev
}
