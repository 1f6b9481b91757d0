package reaper

// This file draws the plans and results of edits and duplicates: the job,
// where it goes, a line diff of its args (each line cleaned for the
// terminal) and the notes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// maxDiffLines bounds the lines of args a diff compares line by line
// (its table is their product); longer args are shown removed and added
// whole.
const maxDiffLines = 2000

// PrettyArgs is args as the editor shows them: indented by two spaces,
// every value's text as stored; null or absent args are "{}".
func PrettyArgs(args []byte) []byte {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		return []byte("{}\n")
	}
	var b bytes.Buffer
	if err := json.Indent(&b, a, "", "  "); err != nil {
		return append(append([]byte{}, a...), '\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// RenderEditPlan writes an edit's or duplicate's plan as plain text.
func RenderEditPlan(w io.Writer, p EditPlan) {
	sj := p.Job
	what := ""
	switch p.Mode {
	case EditReplace:
		what = fmt.Sprintf("replace the args of this job in %s (same score; id, t, name and every other field kept byte for byte)", p.Job.Set)
	case EditRequeue:
		what = fmt.Sprintf("replace the args of this job and move it from %s to the back of its queue (t = now", p.Job.Set)
		if p.Job.Set == "dead" {
			what += "; fails, err and failed_at dropped, as RetryDeadJob does)"
		} else {
			what += "; fails, err and failed_at kept)"
		}
	case EditCopy:
		what = fmt.Sprintf("push a copy of this job onto the back of its queue, with id %s, t = now and no fails, err or failed_at; the job stays in %s", p.NewID, p.Job.Set)
	}
	fmt.Fprintf(w, "Plan for namespace %s (Redis time %s): %s.\n", textsafe.Clean(p.Namespace), p.RedisTime.UTC().Format(time.RFC3339), what)
	fmt.Fprintf(w, "  job    %s\n", describeItem(JobItem{Job: sj}))
	if p.Mode != EditReplace {
		fmt.Fprintf(w, "  queue  %s\n", textsafe.Clean(p.QueueKey))
	}
	if p.Mode != EditCopy {
		fmt.Fprintln(w, "Args (- stored, + edited):")
		for _, l := range DiffLines(string(PrettyArgs(p.OldArgs)), string(PrettyArgs(p.NewArgs))) {
			fmt.Fprintf(w, "  %s\n", textsafe.Clean(l))
		}
	}
	if p.Mode != EditReplace {
		if p.Unserved {
			fmt.Fprintf(w, "Warning: no live worker pool serves %s: the job waits in its queue until one does.\n", textsafe.Clean(sj.Job.Name))
		}
		if p.Paused {
			fmt.Fprintf(w, "Warning: %s is paused: the job waits in its queue until it is unpaused.\n", textsafe.Clean(sj.Job.Name))
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "Note: %s.\n", n)
	}
}

// RenderEditResult writes what an edit or duplicate did.
func RenderEditResult(w io.Writer, p EditPlan, r EditResult) {
	id := textsafe.Clean(truncateBytes([]byte(p.Job.Job.ID), 40))
	switch r.Code {
	case "e":
		fmt.Fprintf(w, "Edited: job %s in %s has its new args.\n", id, textsafe.Clean(p.SetKey))
	case "q":
		fmt.Fprintf(w, "Edited and requeued: job %s is on %s (t %s).\n", id, textsafe.Clean(p.QueueKey), r.Now)
	case "c":
		fmt.Fprintf(w, "Duplicated: job %s is on %s (t %s); job %s stays in %s.\n", p.NewID, textsafe.Clean(p.QueueKey), r.Now, id, textsafe.Clean(p.SetKey))
	default:
		fmt.Fprintln(w, "Nothing changed.")
		return
	}
	switch r.Unique {
	case "moved":
		fmt.Fprintf(w, "Unique key moved to %s.\n", textsafe.Clean(p.NewUnique))
	case "set":
		fmt.Fprintf(w, "Unique key %s set for 24 h.\n", textsafe.Clean(p.NewUnique))
	}
}

// DiffLines is a line diff of a and b: each line of the result starts
// with "  " (in both), "- " (only in a) or "+ " (only in b). It is the
// longest common subsequence of lines; past maxDiffLines lines a is shown
// removed and b added, whole.
func DiffLines(a, b string) []string {
	x := strings.Split(strings.TrimSuffix(a, "\n"), "\n")
	y := strings.Split(strings.TrimSuffix(b, "\n"), "\n")
	if len(x) > maxDiffLines || len(y) > maxDiffLines {
		var out []string
		for _, l := range x {
			out = append(out, "- "+l)
		}
		for _, l := range y {
			out = append(out, "+ "+l)
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of x[i:]
	// and y[j:].
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			out = append(out, "  "+x[i])
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, "- "+x[i])
			i++
		default:
			out = append(out, "+ "+y[j])
			j++
		}
	}
	for ; i < len(x); i++ {
		out = append(out, "- "+x[i])
	}
	for ; j < len(y); j++ {
		out = append(out, "+ "+y[j])
	}
	return out
}
