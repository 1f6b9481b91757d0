package model

import (
	"fmt"
	"time"
)

// Throttled says who capped a job type's max_concurrency, when, and to
// what: set on a JobType while the last throttle recorded in the journal
// for its namespace is still in force (Redis holds the value it wrote; a
// pool start since writes the pools' own and ends it).
type Throttled struct {
	// Value is the cap the throttle wrote; Before the key's bytes before
	// it ("" when absent).
	Value  int64  `json:"value"`
	Before string `json:"before"`
	// Pools is the value before the first of the throttles that followed
	// each other up to this one (each replacing what the last wrote): what
	// the pools wrote, as far as the journal tells.
	Pools string `json:"pools"`
	By    string `json:"by"`
	// At is when the action ran (the journal's clock, the operator's).
	At time.Time `json:"at"`
	// Action is the journal's ID of the throttle (`undo ID` puts Before
	// back).
	Action string `json:"action"`
}

// Text is the throttle in one line: "THROTTLED to 1 by ann at 2026-12-07
// 14:11 UTC (action 20261207-141124-001)".
func (t Throttled) Text() string {
	by := t.By
	if by == "" {
		by = "an unnamed user"
	}
	return fmt.Sprintf("THROTTLED to %d by %s at %s (action %s)", t.Value, by, t.At.UTC().Format("2006-01-02 15:04 UTC"), t.Action)
}

// throttledFact is the line explain adds for a throttled job type.
func throttledFact(t Throttled) string {
	before := t.Before
	if before == "" {
		before = "absent"
	}
	return fmt.Sprintf("%s: max_concurrency was %s before; the next pool start writes the pools' own", t.Text(), before)
}
