package reaper

import (
	"fmt"
	"io"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// PauseEffect is what a pause or unpause means for one job type's workers,
// in one line: "workers stop taking new JOB jobs; the 3 in progress
// finish", or "workers start taking JOB jobs again; 12 queued". It is the
// line the screen's dialog and `pause --dry-run` show.
func PauseEffect(pause bool, j PauseJob) string {
	name := textsafe.Clean(j.Name)
	if pause {
		running := fmt.Sprintf("the %d in progress finish", j.InProgress)
		switch j.InProgress {
		case 0:
			running = "none is in progress"
		case 1:
			running = "the 1 in progress finishes"
		}
		return fmt.Sprintf("workers stop taking new %s jobs; %s", name, running)
	}
	return fmt.Sprintf("workers start taking %s jobs again; %d queued", name, j.Queued)
}

// RenderPausePlan writes a pause or unpause plan as plain text: per job
// type what it means for the workers and the one command it takes. It is
// what `pause --dry-run` and `unpause --dry-run` print.
func RenderPausePlan(w io.Writer, p PausePlan) {
	title := "Pause"
	if !p.Pause {
		title = "Unpause"
	}
	fmt.Fprintf(w, "%s plan for namespace %s:\n", title, textsafe.Clean(p.Namespace))
	for _, j := range p.Jobs {
		name := textsafe.Clean(j.Name)
		switch {
		case p.Pause && j.Paused:
			fmt.Fprintf(w, "  %s: already paused: nothing to do\n", name)
			continue
		case !p.Pause && !j.Paused && j.Known:
			fmt.Fprintf(w, "  %s: not paused: nothing to do\n", name)
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", name, PauseEffect(p.Pause, j))
		if !j.Known {
			fmt.Fprintf(w, "    %s is not a known job type: no worker pool names it\n", name)
		}
		if p.Pause {
			fmt.Fprintf(w, "    SET %s 1\n", textsafe.Clean(j.Key))
		} else {
			fmt.Fprintf(w, "    DEL %s\n", textsafe.Clean(j.Key))
		}
	}
	fmt.Fprintln(w)
	if p.Pause {
		fmt.Fprintln(w, "Jobs already taken run to the end; enqueues go on and the queue grows.")
	} else {
		fmt.Fprintln(w, "Idle workers poll with a back-off of up to 5 s, so work resumes within seconds.")
	}
	fmt.Fprintln(w, "Every key is re-checked when written: one that holds something other than a string refuses the whole change.")
}

// RenderPauseResult writes what a pause or unpause did, one line per job
// type and a total.
func RenderPauseResult(w io.Writer, r PauseResult) {
	for _, j := range r.Jobs {
		line := fmt.Sprintf("%s: %s", textsafe.Clean(j.Name), j.Status)
		if j.Status == PauseRefused {
			line += fmt.Sprintf(" (%s is a %s)", textsafe.Clean(j.Key), textsafe.Clean(j.Type))
		}
		fmt.Fprintln(w, line)
	}
	verb := "paused"
	if !r.Pause {
		verb = "unpaused"
	}
	fmt.Fprintf(w, "Done: %s %s.\n", model.Plural(r.Changed(), "job type", "job types"), verb)
}
