package cli

// This file owns the audit log of the commands that write: the --audit-log
// flag and the one line each executed write appends (internal/audit, the
// same file and format as the screen's).

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/shellword"
)

// auditFlag is --audit-log, declared by every command that writes.
type auditFlag struct {
	path       string
	journalMax int64
}

// commandPrefix is the command prefix in force for t (commandPrefix) and
// the --audit-log given: the start of a printed history or undo command,
// which reads the journal beside that audit log.
func (a auditFlag) commandPrefix(t *target) string {
	p := commandPrefix(t)
	if a.path != "" {
		p += " --audit-log " + shellword.Quote(a.path)
	}
	return p
}

func (a *auditFlag) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&a.path, "audit-log", "", "append one line per executed write to `FILE` (default: the user's state directory)")
	fs.Int64Var(&a.journalMax, "journal-max", journal.DefaultMax, "keep the journals of the last actions (in the journal directory beside the audit log) within `BYTES`, dropping the oldest")
}

// auditLog is where an executed write records its one line.
type auditLog struct {
	file   *audit.File
	target *target // the address and namespace of the line
	// journal is the directory of the actions' journals (journal.go);
	// journalID the ID of this action's, once started.
	journal   journal.Dir
	journalID string
	// prefix is the command prefix in force with the --audit-log given:
	// what the printed history and undo commands start with, so that they
	// read this journal.
	prefix string
}

// open resolves the audit log of a write that may run: --audit-log, else
// the user's state directory (audit.DefaultPath), as the screen does. Call
// it before connecting: a missing home directory is a usage error before
// anything happens. A dry run writes no line and needs no log: nil. The
// file is not created yet (see ready).
func (a auditFlag) open(e env, t *target, dryRun bool) (*auditLog, error) {
	if dryRun {
		return nil, nil
	}
	path := a.path
	if path == "" {
		home, _ := os.UserHomeDir()
		p, err := audit.DefaultPath(e.getenv, home)
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		path = p
	}
	return &auditLog{file: &audit.File{Path: path, User: osUser(e.getenv)}, target: t,
		journal: journal.Dir{Path: journal.DirBeside(path), Max: a.journalMax}, prefix: a.commandPrefix(t)}, nil
}

// ready makes sure the line can be written, creating the file (and its
// directory) if need be: called after the confirmation and before the
// write, so that a write never runs without its line, and an answer of no
// leaves no file behind.
func (l *auditLog) ready() error {
	if err := os.MkdirAll(filepath.Dir(l.file.Path), 0o700); err != nil {
		return localErrorf("audit log: nothing changed: %w", err)
	}
	f, err := audit.Open(l.file.Path)
	if err != nil {
		return localErrorf("audit log: nothing changed: %w", err)
	}
	if err := f.Close(); err != nil {
		return localErrorf("audit log: nothing changed: %w", err)
	}
	return nil
}

// record appends the line of an executed write: action, its targets, the
// jobs it moved and its result in words; when execErr is set the result is
// the error. It returns execErr, joined with the audit log's own failure.
func (l *auditLog) record(action string, targets []string, moved int64, result string, execErr error) error {
	entry := audit.Entry{Time: time.Now(), Address: l.target.address(), Namespace: l.target.namespace,
		Action: action, Targets: targets, Moved: moved, Result: result, Journal: l.journalID}
	if execErr != nil {
		entry.Result = "error: " + execErr.Error()
		if result != "" {
			entry.Result += "; " + result
		}
	}
	auditErr := l.file.Record(entry)
	switch {
	case auditErr == nil:
		return execErr
	case execErr != nil:
		return fmt.Errorf("%w (and the audit log was not written: %v)", execErr, auditErr)
	}
	return localErrorf("%s done, but the audit log was not written: %w", action, auditErr)
}

// resultText is what a result renderer prints, on one line: the audit
// line's result.
func resultText(render func(io.Writer)) string {
	var b strings.Builder
	render(&b)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}
