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
	"strings"
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
		help: `List the actions in the journal (beside the audit log: the directory
journal beside the default one, FILE.journal beside an --audit-log FILE)
that ran on this Redis and namespace: ID, time, command, how many
script calls and items, and whether it ended, was undone or was cut short.
With ACTION_ID, show what the action changed, call by call: each job's set,
score and bytes, each queue, unique key and pause key as they were before.
The journal holds the jobs' bytes, arguments included: its files are
readable by their owner only. Reaps, orphan requeues and lock repairs are on
record here, though undo refuses them. Only the user's own journal files are
read: other files of the directory are named, escaped, and left alone.
Nothing is sent to Redis (with Sentinel, the sentinels are asked for the
master, for at most a second).`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &historyCmd{}
			c.target.addFlags(fs)
			c.audit.addFlags(fs)
			fs.BoolVar(&c.json, "json", false, "print JSON")
			fs.BoolVar(&c.all, "all", false, "list the actions of every target and namespace")
			fs.BoolVar(&c.wide, "wide", false, "print one row per action with every column, and lines whole (the output fits 80 columns without it)")
			return c
		},
	}
}

type historyCmd struct {
	target
	audit auditFlag
	json  bool
	all   bool
	wide  bool
}

func (c *historyCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	if len(args) > 1 {
		return usageErrorf("history takes at most one ACTION_ID")
	}
	dir, legacy, err := c.audit.journalDirs(e)
	if err != nil {
		return err
	}
	if err := c.journalAddress(ctx, e.stderr); err != nil {
		return err
	}
	noteLegacyJournal(e, dir, legacy)
	if len(args) == 1 {
		acts, _, err := dir.List()
		if err != nil {
			return localErrorf("history: %w", err)
		}
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
		var b strings.Builder
		reaper.RenderAction(&b, a, journal.State(a, acts), c.audit.commandPrefix(&c.target))
		_, err = io.WriteString(e.stdout, fitWidth(b.String(), c.wide))
		return err
	}
	tgt := &c.target
	if c.all {
		tgt = nil
	}
	rows, bad, err := targetHistory(dir, tgt)
	if err != nil {
		return err
	}
	for _, b := range bad {
		fmt.Fprintf(e.stderr, "warning: %s\n", textsafe.Clean(b.Error()))
	}
	if c.json {
		if rows == nil {
			rows = []journal.Summary{}
		}
		return writeJSON(e.stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(e.stdout, "No action in the journal %s for namespace %s on %s.\n", textsafe.Clean(dir.Path), textsafe.Clean(c.namespace), textsafe.Clean(c.address()))
		return nil
	}
	if !c.wide {
		return writeHistoryNarrow(e.stdout, rows, c.all)
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

// textWidth is the width the history and undo fit without --wide.
const textWidth = 80

// writeHistoryNarrow writes the history within textWidth columns: a row of
// ID, time, items done and command, and under it the state (with --all,
// the namespace and Redis first), both cut to the width.
func writeHistoryNarrow(w io.Writer, rows []journal.Summary, all bool) error {
	tb := textable.New(2)
	tb.Row("ID", "TIME (UTC)", "DONE", "COMMAND")
	indent := strings.Repeat(" ", 4)
	var under []string
	for _, r := range rows {
		tb.Row(r.ID, r.Time.UTC().Format("2006-01-02 15:04:05"), strconv.FormatInt(r.Done, 10), textsafe.Clean(r.Command))
		state := textsafe.Clean(r.State)
		if all {
			state = "namespace " + textsafe.Clean(r.Namespace) + " on " + textsafe.Clean(r.Redis) + "; " + state
		}
		under = append(under, indent+textsafe.Cut(state, textWidth-len(indent)))
	}
	var b strings.Builder
	if _, err := tb.WriteTo(&b); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	var out strings.Builder
	out.WriteString(textsafe.Cut(strings.TrimRight(lines[0], " "), textWidth) + "\n")
	for i, l := range lines[1:] {
		out.WriteString(textsafe.Cut(strings.TrimRight(l, " "), textWidth) + "\n")
		out.WriteString(under[i] + "\n")
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// fitWidth is text wrapped to textWidth columns, or whole with wide. A
// line that is a command to paste (it starts with the program's name) is
// left whole: cut in two it would not run.
func fitWidth(text string, wide bool) string {
	if wide {
		return text
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), "workq-tui ") {
			lines[i] = reaper.WrapText(l, textWidth)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// targetHistory is the summaries of the journal's actions of target t
// (of every target when t is nil), oldest first, and the files that could
// not be read.
func targetHistory(dir journal.Dir, t *target) ([]journal.Summary, []error, error) {
	acts, bad, err := dir.List()
	if err != nil {
		return nil, nil, localErrorf("history: %w", err)
	}
	var rows []journal.Summary
	for _, a := range acts {
		if t != nil && !sameTarget(a, t) {
			continue
		}
		rows = append(rows, journal.Summarize(a, acts))
	}
	return rows, bad, nil
}

// sameTarget is whether an action ran on the Redis and namespace of t; of
// the namespace on any Redis when t's address could not be found (a
// Sentinel target whose sentinels did not answer: see journalAddress).
func sameTarget(a *journal.Action, t *target) bool {
	return (t.address() == "" || a.Header.Address == t.address()) && a.Header.Namespace == t.namespace
}

// sentinelLookup bounds how long history and completion, which only read
// local files, wait for the sentinels to name the master.
const sentinelLookup = time.Second

// journalAddress finds the address the journal names t by. Nothing is sent
// to Redis; with Sentinel the sentinels are asked for the master, for at
// most sentinelLookup: when they do not answer, the address stays "" (the
// actions of the namespace on every Redis are listed) and a warning says
// so on warn.
func (t *target) journalAddress(ctx context.Context, warn io.Writer) error {
	lctx := ctx
	if t.sentinel.enabled() {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(ctx, sentinelLookup)
		defer cancel()
	}
	_, stop, err := t.open(lctx)
	var usage *exitCodeError
	if err != nil && t.sentinel.enabled() && ctx.Err() == nil && !errors.As(err, &usage) {
		t.endpoint = ""
		fmt.Fprintf(warn, "warning: the sentinels did not name the master (%s): showing the actions of namespace %s on every address\n",
			textsafe.Clean(strings.Join(strings.Fields(err.Error()), " ")), textsafe.Clean(t.namespace))
		return nil
	}
	if err != nil {
		return err
	}
	stop()
	return nil
}

// noteLegacyJournal says where the journals of earlier versions are when
// they used another directory for this audit log and it holds any.
func noteLegacyJournal(e env, dir journal.Dir, legacy string) {
	if legacy == "" || !journal.HoldsJournals(legacy) {
		return
	}
	fmt.Fprintf(e.stderr, "note: journals written by earlier versions for this audit log are in %s; this version keeps them in %s (move the .wqj files there to list and undo them)\n",
		textsafe.Clean(legacy), textsafe.Clean(dir.Path))
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

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
