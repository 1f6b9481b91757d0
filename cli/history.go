package cli

// This file owns the history command: the actions of the journal (beside
// the audit log), of this target and namespace, and what one of them
// changed.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/journal"
	textable "github.com/workq-tui/workq-tui/internal/table"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/reaper"
)

func historyCommand() command {
	return command{
		name:    "history",
		args:    "[ACTION_ID]",
		summary: "list the writes of this target and namespace, or show what one changed",
		help: `List the actions in the journal (the directory journal beside the audit
log) that ran on this Redis and namespace: ID, time, command, how many
script calls and items, and whether it ended, was undone or was cut short.
With ACTION_ID, show what the action changed, call by call: each job's set,
score and bytes, each queue, unique key and pause key as they were before.
The journal holds the jobs' bytes, arguments included: its files are
readable by their owner only. Reaps, orphan requeues and lock repairs are on
record here, though undo refuses them. Nothing is sent to Redis.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &historyCmd{}
			c.target.addFlags(fs)
			c.audit.addFlags(fs)
			fs.BoolVar(&c.json, "json", false, "print JSON")
			fs.BoolVar(&c.all, "all", false, "list the actions of every target and namespace")
			return c
		},
	}
}

type historyCmd struct {
	target
	audit auditFlag
	json  bool
	all   bool
}

func (c *historyCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	if len(args) > 1 {
		return usageErrorf("history takes at most one ACTION_ID")
	}
	dir, err := c.audit.journalDir(e)
	if err != nil {
		return err
	}
	_, stop, err := c.open(ctx) // the address as the journal names it; nothing is sent
	if err != nil {
		return err
	}
	stop()
	acts, bad, err := dir.List()
	if err != nil {
		return localErrorf("history: %w", err)
	}
	if len(args) == 1 {
		a, err := readAction(dir, args[0], &c.target)
		if err != nil {
			return err
		}
		if a.Damage != "" {
			fmt.Fprintf(e.stderr, "warning: journal %s: %s\n", textsafe.Clean(a.Header.ID), textsafe.Clean(a.Damage))
		}
		if c.json {
			return writeJSON(e.stdout, a)
		}
		renderAction(e.stdout, a, actionState(a, acts))
		return nil
	}
	for _, b := range bad {
		fmt.Fprintf(e.stderr, "warning: %s\n", textsafe.Clean(b.Error()))
	}
	var rows []historyRow
	for _, a := range acts {
		if !c.all && !sameTarget(a, &c.target) {
			continue
		}
		rows = append(rows, newHistoryRow(a, acts))
	}
	if c.json {
		if rows == nil {
			rows = []historyRow{}
		}
		return writeJSON(e.stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(e.stdout, "No action in the journal %s for namespace %s on %s.\n", textsafe.Clean(dir.Path), textsafe.Clean(c.namespace), textsafe.Clean(c.address()))
		return nil
	}
	tb := textable.New(2)
	tb.Row("ID", "TIME (UTC)", "REDIS", "NAMESPACE", "COMMAND", "CALLS", "DONE", "STATE")
	for _, r := range rows {
		tb.Row(r.ID, r.Time.UTC().Format("2006-01-02 15:04:05"), textsafe.Clean(r.Redis), textsafe.Clean(r.Namespace),
			textsafe.Clean(r.Command), strconv.Itoa(r.Calls), strconv.FormatInt(r.Done, 10), textsafe.Clean(r.State))
	}
	_, err = tb.WriteTo(e.stdout)
	return err
}

// historyRow is one action as history lists it (and its JSON).
type historyRow struct {
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

func newHistoryRow(a *journal.Action, all []*journal.Action) historyRow {
	h := a.Header
	r := historyRow{ID: h.ID, Time: h.Time, Redis: h.Address, Target: h.Target, Namespace: h.Namespace, Op: h.Op,
		Command: h.Command, Targets: h.Targets, Calls: len(a.Calls), State: actionState(a, all), UndoOf: h.UndoOf, Damage: a.Damage}
	if r.Targets == nil {
		r.Targets = []string{}
	}
	for _, c := range a.Calls {
		r.Items += len(c.Intent.Items)
	}
	if a.End != nil {
		r.Done = a.End.Done
	}
	return r
}

// actionState is whether an action ended, was cut short, was undone.
func actionState(a *journal.Action, all []*journal.Action) string {
	state := "done"
	switch {
	case a.End == nil:
		state = "cut short"
	case a.End.Error != "":
		state = "ended with an error"
	}
	if a.Header.Op == journal.OpUndo {
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

// sameTarget is whether an action ran on the Redis and namespace of t.
func sameTarget(a *journal.Action, t *target) bool {
	return a.Header.Address == t.address() && a.Header.Namespace == t.namespace
}

// errOtherTarget: an action of another Redis or namespace.
var errOtherTarget = errors.New("ran on another target")

// readAction reads one action's journal and refuses one of another target.
func readAction(dir journal.Dir, id string, t *target) (*journal.Action, error) {
	a, err := dir.Read(id)
	if errors.Is(err, journal.ErrNotFound) {
		return nil, localErrorf("action %s is not in the journal %s (`workq-tui history` lists them)", textsafe.Clean(id), textsafe.Clean(dir.Path))
	}
	if err != nil {
		return nil, localErrorf("%w", err)
	}
	if !sameTarget(a, t) {
		return nil, localErrorf("action %s %w: namespace %s on %s, not namespace %s on %s; give that --redis and --namespace",
			textsafe.Clean(id), errOtherTarget, textsafe.Clean(a.Header.Namespace), textsafe.Clean(a.Header.Address),
			textsafe.Clean(t.namespace), textsafe.Clean(t.address()))
	}
	return a, nil
}

// historyItemLimit bounds the items history lists of one action in text.
const historyItemLimit = 200

// renderAction writes what an action changed, call by call.
func renderAction(w io.Writer, a *journal.Action, state string) {
	h := a.Header
	fmt.Fprintf(w, "Action %s: %s\n", textsafe.Clean(h.ID), textsafe.Clean(h.Command))
	fmt.Fprintf(w, "  time %s, user %s, namespace %s on %s\n", h.Time.UTC().Format(time.RFC3339), textsafe.Clean(h.User), textsafe.Clean(h.Namespace), textsafe.Clean(h.Address))
	fmt.Fprintf(w, "  state: %s\n", textsafe.Clean(state))
	if a.End != nil && a.End.Result != "" {
		fmt.Fprintf(w, "  result: %s\n", textsafe.Clean(a.End.Result))
	}
	if a.Damage != "" {
		fmt.Fprintf(w, "  journal damaged: %s\n", textsafe.Clean(a.Damage))
	}
	shown := 0
	for _, c := range a.Calls {
		outcome := "reply never read: may or may not have run"
		if c.Commit != nil && c.Commit.Error != "" {
			outcome = "failed: " + c.Commit.Error
		} else if c.Commit != nil {
			outcome = "ran"
			if c.Commit.Codes != "" {
				outcome += ", codes " + c.Commit.Codes
			}
		}
		fmt.Fprintf(w, "Call %d (%d items): %s\n", c.Seq, len(c.Intent.Items), textsafe.Clean(outcome))
		for _, it := range c.Intent.Items {
			if shown == historyItemLimit {
				break
			}
			shown++
			fmt.Fprintf(w, "  %s\n", textsafe.Clean(reaper.DescribeUndoItem(it)))
		}
	}
	if n := countItems(a) - shown; n > 0 {
		fmt.Fprintf(w, "... and %d more items (--json lists them all)\n", n)
	}
}

func countItems(a *journal.Action) int {
	n := 0
	for _, c := range a.Calls {
		n += len(c.Intent.Items)
	}
	return n
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
