package journal

import (
	"strings"
	"time"
)

// Summary is one action as the history lists it (and its JSON): what it
// was, on which Redis and namespace, how far it went and whether it was
// undone.
type Summary struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	Redis     string    `json:"redis"`
	Target    string    `json:"target,omitempty"`
	Namespace string    `json:"namespace"`
	Op        string    `json:"op"`
	Command   string    `json:"command"`
	Targets   []string  `json:"targets"`
	Calls     int       `json:"calls"`
	Items     int       `json:"items"`
	Done      int64     `json:"done"`
	State     string    `json:"state"`
	UndoOf    string    `json:"undo_of,omitempty"`
	Damage    string    `json:"damage,omitempty"`
}

// Summarize is a's summary; all are the actions of the journal, which say
// whether an undo of a ran.
func Summarize(a *Action, all []*Action) Summary {
	h := a.Header
	r := Summary{ID: h.ID, Time: h.Time, Redis: h.Address, Target: h.Target, Namespace: h.Namespace, Op: h.Op,
		Command: h.Command, Targets: h.Targets, Calls: len(a.Calls), State: State(a, all), UndoOf: h.UndoOf, Damage: a.Damage}
	if r.Targets == nil {
		r.Targets = []string{}
	}
	r.Items = a.Items()
	if a.End != nil {
		r.Done = a.End.Done
	} else {
		r.Done = a.committedDone()
	}
	return r
}

// doneCodes are the item codes of a commit of op that say an item was
// changed: what a cut-short action did, counted from its commits.
func doneCodes(op string) string {
	switch op {
	case OpRequeue:
		return "m"
	case OpDelete:
		return "du"
	case OpUndo:
		return "ruek"
	case OpEdit:
		return "eq"
	case OpDuplicate:
		return "c"
	}
	return ""
}

// committedDone counts the items that calls whose reply was read report
// changed: the Done of an action killed before its end record (0 for an
// Op whose commits say it otherwise).
func (a *Action) committedDone() int64 {
	codes := doneCodes(a.Header.Op)
	var n int64
	for _, c := range a.Calls {
		if c.Commit == nil || c.Commit.Error != "" {
			continue
		}
		for i := 0; i < len(c.Commit.Codes); i++ {
			code := c.Commit.Codes[i]
			// An undo's 'e' is a unique key that expired (its job is back)
			// or a pause that would have (nothing put back).
			expiredPause := code == 'e' && i < len(c.Intent.Items) && c.Intent.Items[i].Key != nil
			if strings.IndexByte(codes, code) >= 0 && !expiredPause {
				n++
			}
		}
	}
	return n
}

// Items counts the items of every call of a.
func (a *Action) Items() int {
	n := 0
	for _, c := range a.Calls {
		n += len(c.Intent.Items)
	}
	return n
}

// State is whether a ended, was cut short, was undone (by one of all).
func State(a *Action, all []*Action) string {
	state := "done"
	switch {
	case a.End == nil:
		state = "cut short"
	case a.End.Error != "":
		state = "ended with an error"
	}
	if a.Header.Op == OpUndo {
		return "undo of " + a.Header.UndoOf + ", " + state
	}
	// An undo that ended having put nothing back (every item had moved on)
	// does not make the action undone, unless an undo before it put some
	// back: then the items it found back are that undo's.
	undo, putBack := "", false
	for _, u := range all {
		if u.Header.UndoOf != a.Header.ID {
			continue
		}
		done := u.committedDone()
		if u.End != nil {
			done = u.End.Done
		}
		switch {
		case u.End != nil && u.End.Error == "" && (done > 0 || putBack):
			undo = "undone by " + u.Header.ID
		case u.End != nil && u.End.Error == "":
			undo = "undo " + u.Header.ID + " put nothing back (all had moved on)"
		case undo == "":
			undo = "undo cut short (" + u.Header.ID + "): run undo again"
		}
		putBack = putBack || done > 0
	}
	if undo != "" {
		return state + ", " + undo
	}
	return state
}
