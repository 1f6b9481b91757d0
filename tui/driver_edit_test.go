package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// editedBy is an editor (a VISUAL script) that turns the args' "n": 1
// into "n": 2.
func editedBy(t *testing.T) map[string]string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "ed")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsed -i 's/\"n\": 1/\"n\": 2/' \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"VISUAL": script}
}

// editDeadJob opens the screen on one dead mail job e1 (a live pool
// serves mail) with editedBy's editor, and presses e on its detail.
func editDeadJob(t *testing.T) (*screentest.Screen, *screentest.Seed) {
	t.Helper()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail")
	seed.Dead("mail", "smtp 421", "e1")
	s := screentest.StartWith(t, srv, editedBy(t))
	s.Run("jobs dead")
	s.Wait("e1")
	s.Press("enter")
	s.Wait("one job · esc back")
	s.Press("e")
	return s, seed
}

// e on a dead job's detail runs the operator's editor on its args (the
// program's own editor session and planner); the dialog shows the diff,
// and R plans the edit with the job moved onto its queue, which y runs:
// the queue holds the job with its new args, the dead set no longer does.
func TestDriveJobEditAndRequeue(t *testing.T) {
	t.Parallel()
	s, seed := editDeadJob(t)
	s.Wait(`-   "n": 1`, `+   "n": 2`)
	if got := s.DialogTitle(); got != "Edit the args of job e1 in dead?" {
		t.Errorf("dialog title %q", got)
	}
	if h := s.HelpLine(); !strings.Contains(h, "R save and requeue") {
		t.Errorf("the help line does not offer R: %q", h)
	}
	s.ConfirmWith("R", "R: save and requeue")
	s.WaitFor("the requeue's plan", func(string) bool {
		return s.DialogTitle() == "Edit job e1 and requeue it onto work:jobs:mail?"
	})
	s.Confirm()
	s.WaitFor("the edit and requeue", func(string) bool { return seed.Int("LLEN", seed.K.Queue("mail")) == 1 })
	queued, _ := seed.Do("LINDEX", seed.K.Queue("mail"), 0).([]byte)
	if !strings.Contains(string(queued), `"args":{"n":2}`) || !strings.Contains(string(queued), `"id":"e1"`) {
		t.Errorf("queued %s, want e1 with its new args", queued)
	}
	if n := seed.Int("ZCARD", seed.K.Dead()); n != 0 {
		t.Errorf("the dead set holds %d jobs, want none", n)
	}
	s.WaitFor("the audit line", func(string) bool {
		b, _ := os.ReadFile(s.Audit)
		return strings.Contains(string(b), "jobs-edit")
	})
}

// Without R, y saves the new args where the job is: it stays dead.
func TestDriveJobEditSave(t *testing.T) {
	t.Parallel()
	s, seed := editDeadJob(t)
	s.Confirm()
	s.WaitFor("the edit", func(string) bool {
		m, _ := seed.Do("ZRANGE", seed.K.Dead(), 0, -1).([]any)
		return len(m) == 1 && strings.Contains(string(m[0].([]byte)), `"args":{"n":2}`)
	})
	if n := seed.Int("LLEN", seed.K.Queue("mail")); n != 0 {
		t.Errorf("the queue holds %d jobs, want none", n)
	}
}
