package cli

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// journalled is a command that reads the journal of its target: history
// and undo. Completion offers the IDs of that target's actions.
type journalled interface {
	completionJournal() (auditFlag, *target)
}

func (c *historyCmd) completionJournal() (auditFlag, *target) { return c.audit, &c.target }
func (c *undoCmd) completionJournal() (auditFlag, *target)    { return c.audit, &c.target }

// actionIDs are the IDs of the journal's actions on the command line's
// target, newest first, each described by its command and state; for undo
// only those it could still put back (not undone, not an undo). Nothing
// is sent to Redis; a journal that cannot be read completes nothing. Each
// journal is skimmed (its header and end record, not its calls), and only
// files named as the program names journals are read, so an ID offered is
// always digits and dashes, and a description is cleaned text.
func (l *liveSource) actionIDs(ctx context.Context, forUndo bool) []candidate {
	j, ok := l.fs.runner.(journalled)
	if !ok || !l.ok {
		return nil
	}
	audit, t := j.completionJournal()
	if t.demo || t.check(l.e) != nil {
		return nil
	}
	dir, err := audit.journalDir(l.e)
	if err != nil {
		return nil
	}
	if t.journalAddress(ctx, io.Discard) != nil {
		return nil
	}
	acts, _, err := dir.Skims()
	if err != nil {
		return nil
	}
	var out []candidate
	for _, a := range slices.Backward(acts) {
		if !sameTarget(a, t) || !journal.ValidID(a.Header.ID) {
			continue
		}
		s := journal.Summarize(a, acts)
		if forUndo && (strings.Contains(s.State, "undone by") || s.UndoOf != "" || s.Op == journal.OpUndo) {
			continue
		}
		out = append(out, candidate{s.ID, textsafe.Clean(s.Command + " (" + s.State + ")")})
	}
	return out
}
