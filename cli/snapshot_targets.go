package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// `snapshot --target a --target b`: every target read at once, each on its
// own connections and with its own timeout (its --timeout bounds each of
// its calls), so a target that is down or slow holds up only its own entry.

// targetSnapshot is one target's read: the snapshot, or why there is none.
type targetSnapshot struct {
	name string
	snap *model.Snapshot
	err  error
}

// runTargets reads every target named by --target and prints them all, in
// the order given. Exit 1 when any target could not be read (the others are
// printed all the same), else 3 when any has findings.
func (c *snapshotCmd) runTargets(ctx context.Context, e env) error {
	ts, unusable, err := c.targets(e)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := checkDeadAfter(t.deadAfter); err != nil {
			return err
		}
	}
	results := make([]targetSnapshot, len(ts))
	var wg sync.WaitGroup
	for i, t := range ts {
		if unusable[i] != nil {
			results[i] = targetSnapshot{name: t.name(), err: unusable[i]}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			limits, err := t.healthLimits(c.limits)
			if err != nil {
				results[i] = targetSnapshot{name: t.name(), err: err}
				return
			}
			snap, err := readSnapshot(ctx, t, t.deadAfter, c.longAfter, limits)
			results[i] = targetSnapshot{name: t.name(), snap: snap, err: withAddress(err, t.address())}
		}()
	}
	wg.Wait()

	if c.json {
		err = writeTargetsJSON(e.stdout, results)
	} else {
		err = writeTargetsTable(e.stdout, results, c.wide)
	}
	if err != nil {
		return localErrorf("write snapshot: %w", err)
	}
	var failed []string
	problems := false
	for _, r := range results {
		switch {
		case r.err != nil:
			failed = append(failed, fmt.Sprintf("%s (%s)", r.name, textsafe.Clean(r.err.Error())))
		case r.snap.HasProblems():
			problems = true
		}
	}
	switch {
	case len(failed) > 0:
		return localErrorf("snapshot: %d of %d targets could not be read: %s", len(failed), len(results), strings.Join(failed, "; "))
	case problems:
		return errFindings
	}
	return nil
}

// writeTargetsJSON prints {"targets": [...]}: per target an object with
// "target" and then the fields of `snapshot --json`, or "target" and
// "error" (cleaned like any text from Redis), indented as `snapshot
// --json` is.
func writeTargetsJSON(w io.Writer, results []targetSnapshot) error {
	doc := []byte(`{"targets":[`)
	for i, r := range results {
		if i > 0 {
			doc = append(doc, ',')
		}
		name, err := json.Marshal(r.name)
		if err != nil {
			return err
		}
		if r.err != nil {
			entry, err := json.Marshal(struct {
				Target string `json:"target"`
				Error  string `json:"error"`
			}{r.name, textsafe.Clean(r.err.Error())})
			if err != nil {
				return err
			}
			doc = append(doc, entry...)
			continue
		}
		snap, err := appendSnapshotJSON(nil, snapshotToJSON(r.snap))
		if err != nil {
			return err
		}
		// The snapshot's object with "target" as its first field.
		snap = bytes.TrimSpace(snap)
		doc = append(doc, `{"target":`...)
		doc = append(doc, name...)
		doc = append(doc, ',')
		doc = append(doc, snap[1:]...)
	}
	doc = append(doc, "]}"...)
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := out.WriteTo(w)
	return err
}

// writeTargetsTable prints one section per target, headed by its name:
// the table of `snapshot`, or the error.
func writeTargetsTable(w io.Writer, results []targetSnapshot, wide bool) error {
	bw := &errWriter{w: w}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		fmt.Fprintf(bw, "=== TARGET %s ===\n", textsafe.Clean(r.name))
		if r.err != nil {
			fmt.Fprintf(bw, "error: %s\n", textsafe.Clean(r.err.Error()))
			continue
		}
		if err := writeSnapshotTable(bw, r.snap, wide); err != nil {
			return err
		}
	}
	return bw.err
}
