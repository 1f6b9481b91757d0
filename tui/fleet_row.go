package tui

import (
	"cmp"
	"slices"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// fleetState is how a target's polling stands, worst first.
type fleetState int

const (
	// fleetDown: the last poll failed and there is no data.
	fleetDown fleetState = iota
	// fleetStale: the last poll failed; the data shown is the last good one.
	fleetStale
	// fleetSlow: no error, but no new data for two intervals (a poll hangs).
	fleetSlow
	// fleetOK: the data is fresh.
	fleetOK
	// fleetConnecting: the first poll has not returned yet.
	fleetConnecting
)

func (s fleetState) String() string {
	switch s {
	case fleetDown:
		return "DOWN"
	case fleetStale:
		return "STALE"
	case fleetSlow:
		return "SLOW"
	case fleetOK:
		return "ok"
	default:
		return "conn…"
	}
}

// snapSums are the fleet's numbers of one snapshot, counted once per
// snapshot. A nil count is one the snapshot does not carry; it shows as
// "-" (busy workers). The job set sizes come with every snapshot.
type snapSums struct {
	snapCounts
	queued       int64
	worstLatency *time.Duration
	retry        *int64
	scheduled    *int64
	deadJobs     *int64
	busy         *int64
}

func sumSnapshot(s *model.Snapshot) snapSums {
	retry, scheduled, dead := s.Sets.Retry, s.Sets.Scheduled, s.Sets.Dead
	sum := snapSums{snapCounts: countSnapshot(s), retry: &retry, scheduled: &scheduled, deadJobs: &dead}
	for i := range s.JobTypes {
		jt := &s.JobTypes[i]
		sum.queued += jt.Queued
		if jt.Latency != nil && (sum.worstLatency == nil || *jt.Latency > *sum.worstLatency) {
			l := *jt.Latency
			sum.worstLatency = &l
		}
	}
	return sum
}

// fleetRow is one target as the fleet view shows it: everything a row,
// the ordering and the header need, taken from the target's screen.
type fleetRow struct {
	index   int // the target's position in the fleet
	name    string
	state   fleetState
	hasData bool
	// age is how old the data is (hasData), or how long the first poll
	// has been running (no data).
	age time.Duration
	// orphans is known once an orphan scan completed.
	orphans      int
	orphansKnown bool
	sums         snapSums
	// note is the cleaned error (down, stale) or why the target is slow.
	note string
}

// problems is the weight of what is wrong in a target's data.
func (r fleetRow) problems() int {
	n := r.sums.dead + r.sums.drift
	if r.orphansKnown {
		n += r.orphans
	}
	return n
}

// health ranks a row for the ordering: the polling state, then targets
// with dead pools, drift or orphans, then with late pools, then the rest.
func (r fleetRow) health() int {
	switch r.state {
	case fleetDown, fleetStale, fleetSlow:
		return int(r.state)
	case fleetConnecting:
		return 6
	}
	switch {
	case r.problems() > 0:
		return 3
	case r.sums.late > 0:
		return 4
	}
	return 5
}

// compareRows orders two rows worst first: by health; then more dead
// pools, drift, orphans and late pools; then the oldest data (of a target
// down, stale or slow); then the worst queue latency and the most jobs
// queued; then by name and position, so the order is total and stable.
func compareRows(a, b fleetRow) int {
	latency := func(r fleetRow) time.Duration {
		if r.sums.worstLatency == nil {
			return -1
		}
		return *r.sums.worstLatency
	}
	// The age of fresh data changes every second: it orders only the
	// targets whose polling is in trouble, so healthy rows stay put.
	troubleAge := func(r fleetRow) time.Duration {
		if r.state <= fleetSlow {
			return r.age
		}
		return 0
	}
	return cmp.Or(
		cmp.Compare(a.health(), b.health()),
		cmp.Compare(b.sums.dead, a.sums.dead),
		cmp.Compare(b.sums.drift, a.sums.drift),
		cmp.Compare(b.orphans, a.orphans),
		cmp.Compare(b.sums.late, a.sums.late),
		cmp.Compare(troubleAge(b), troubleAge(a)),
		cmp.Compare(latency(b), latency(a)),
		cmp.Compare(b.sums.queued, a.sums.queued),
		cmp.Compare(a.name, b.name),
		cmp.Compare(a.index, b.index),
	)
}

// orderRows is the display order of the rows, worst first: positions into
// rows. It does not change rows.
func orderRows(rows []fleetRow) []int {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return compareRows(rows[a], rows[b]) })
	return idx
}

// classify is a target's polling state at now. slowAfter is how long
// without new data makes a target slow; started is when the fleet started
// (the first poll's start).
func classify(m *Model, now, started time.Time, slowAfter time.Duration) (fleetState, time.Duration) {
	switch {
	case m.err != nil && m.snap == nil:
		return fleetDown, 0
	case m.err != nil:
		return fleetStale, now.Sub(m.fetchedAt)
	case m.snap == nil:
		waited := now.Sub(started)
		if waited >= slowAfter {
			return fleetSlow, waited
		}
		return fleetConnecting, waited
	}
	age := now.Sub(m.fetchedAt)
	if age >= slowAfter {
		return fleetSlow, age
	}
	return fleetOK, age
}

// slowAfter is how long a target may go without new data before the fleet
// marks it slow: two intervals (a healthy target's data is at most one
// interval and one poll old).
func slowAfter(interval time.Duration) time.Duration { return 2 * interval }
