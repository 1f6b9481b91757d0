package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/reaper"
)

// errAborted is returned when the operator answers no at the prompt.
var errAborted = localError{errors.New("aborted: nothing changed")}

// writeFlags are the flags of every command that writes to Redis: a plan
// first, then a confirmation (or --yes), or only the plan (--dry-run).
type writeFlags struct {
	dryRun bool
	yes    bool
	// wide prints the plan's and result's lines whole (addWide); without
	// it they wrap at 80 columns.
	wide bool
}

func (w *writeFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&w.dryRun, "dry-run", false, "print the plan, change nothing")
	fs.BoolVar(&w.yes, "yes", false, "do not ask for confirmation")
}

// addWide adds --wide, for a writing command that has no --wide of its own.
func (w *writeFlags) addWide(fs *pflag.FlagSet) {
	fs.BoolVar(&w.wide, "wide", false, "print the plan's lines whole (they wrap at 80 columns without it; commands are never wrapped)")
}

// confirm asks the operator on the terminal. With --yes it does not ask;
// without a terminal on stdin it refuses rather than act unasked.
func (w *writeFlags) confirm(e env, question, what string) error {
	if w.yes {
		return nil
	}
	if !e.stdinIsTTY {
		return localErrorf("stdin is not a terminal: run again with --yes to %s without a prompt (or --dry-run to only see the plan)", what)
	}
	fmt.Fprintf(e.stdout, "%s [y/N] ", question)
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return localErrorf("read answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return errAborted
}

// progressPrinter reports progress on w at most every tenth of the total,
// and only when there is more than one step to report.
func progressPrinter(w io.Writer, verb string) reaper.Progress {
	last := int64(-1)
	return func(moved, total int64) {
		if total <= 0 {
			return
		}
		tenth := moved * 10 / total
		if tenth == last || (moved == total && last < 0) {
			last = tenth
			return
		}
		last = tenth
		fmt.Fprintf(w, "%s %d of %d jobs\n", verb, moved, total)
	}
}

// beginWrite is the start of every writing command, before it connects:
// the write verb is refused under --read-only (its --dry-run is not), and
// the audit log is resolved (nil for a dry run).
func beginWrite(e env, t *target, verb string, w writeFlags, a auditFlag) (*auditLog, error) {
	if err := t.refuseWrite(verb, w.dryRun); err != nil {
		return nil, err
	}
	return a.open(e, t, w.dryRun)
}

// printFitted writes what render writes, its prose wrapped at 80 columns
// unless wide; the commands in it are never wrapped, so they paste whole.
func printFitted(w io.Writer, wide bool, render func(io.Writer)) {
	fmt.Fprint(w, fitWidth(resultOf(render), wide))
}
