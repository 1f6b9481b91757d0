package journal

import "time"

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
	}
	return r
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
	undo := ""
	for _, u := range all {
		if u.Header.UndoOf != a.Header.ID {
			continue
		}
		switch {
		case u.End != nil && u.End.Error == "":
			undo = "undone by " + u.Header.ID
		case undo == "":
			undo = "undo cut short (" + u.Header.ID + "): run undo again"
		}
	}
	if undo != "" {
		return state + ", " + undo
	}
	return state
}
