package reaper

// This file owns what an undo checks of a journal before planning from it:
// the journal is a file on disk, and every key it names is one the undo
// will write. A key outside the namespace the undo runs on (an edited or
// planted journal) refuses the whole undo; so does a file that was altered
// after it was written.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/workq-tui/workq-tui/internal/journal"
)

// checkUndoKeys refuses an action that names a key outside prefix (the
// namespace the undo runs on, with its colon), with ErrUndoRefused.
func checkUndoKeys(a *journal.Action, prefix string) error {
	for _, call := range a.Calls {
		for _, it := range call.Intent.Items {
			for _, k := range itemKeys(it) {
				if !strings.HasPrefix(k, prefix) {
					return fmt.Errorf("action %s names the key %s, outside namespace %s: its journal was altered, and it %w", a.Header.ID, strconv.Quote(k), strconv.Quote(strings.TrimSuffix(prefix, ":")), ErrUndoRefused)
				}
			}
		}
	}
	return nil
}

// itemKeys are the keys an item names.
func itemKeys(it journal.Item) []string {
	var out []string
	for _, k := range []string{it.Set, it.Queue} {
		if k != "" {
			out = append(out, k)
		}
	}
	for _, k := range []*journal.Key{it.Unique, it.Key} {
		if k != nil {
			out = append(out, k.Name)
		}
	}
	for k := range it.Lists {
		out = append(out, k)
	}
	return out
}
