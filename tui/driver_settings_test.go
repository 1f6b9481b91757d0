package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// The configuration file's [keys] rebind the actions (X reaps the
// selected pool, ctrl+x all of them) and its [queries] are used as @NAME
// in :where.
func TestDriveConfiguredKeysAndQueries(t *testing.T) {
	t.Parallel()
	const other = "deadbeef0000000000000003"
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.DeadPool(deadPool, "mail")
	seed.DeadPool(other, "mail")
	seed.LivePool(livePool, "mail")
	seed.Dead("mail", "smtp 421", "m1")
	seed.Dead("refund", "gateway down", "rf0", "rf1")
	s := screentest.Start(t, srv, screentest.Config(t, `
[keys]
reap = "X"
reap_all = "ctrl+x"

[queries]
refunds = 'job:refund'
`)...)
	s.Wait("dead pools 2")
	s.Press("X")
	s.Wait("Reap plan")
	if got := s.DialogTitle(); got != "Reap 1 dead pool?" {
		t.Errorf("X (reap) opened %q", got)
	}
	s.Press("esc")
	s.WaitGone("Reap plan")
	s.Press("ctrl+x")
	s.Wait("Reap plan")
	if got := s.DialogTitle(); got != "Reap 2 dead pools?" {
		t.Errorf("ctrl+x (reap all) opened %q", got)
	}
	s.Press("esc")
	s.Run("jobs dead")
	s.Wait("[dead 3]")
	s.Run("where @refunds")
	s.Wait("rf0", "rf1", "1-2 of 2")
	if strings.Contains(s.Text(), " m1 ") {
		t.Errorf("@refunds kept a mail job:\n%s", s.Text())
	}
}

// A bulk requeue at a rate runs as long as the rate says; esc stops it
// between two calls: what moved is in the queue, the rest still dead,
// nothing lost or doubled, and the status line says so.
func TestDriveStopBulkRequeue(t *testing.T) {
	t.Parallel()
	srv, seed := deadJobs(t)
	s := screentest.Start(t, srv, "--batch", "1")
	s.Run("jobs dead")
	s.Wait("1-20 of 42")
	s.Run("where job:mail")
	s.Wait("where job:mail")
	s.Press("A")
	s.Wait("all 40 matching marked")
	s.Press("R")
	s.Wait("y: run it")
	s.Press("5")
	s.Wait("at most 5 jobs/s")
	s.Confirm()
	s.WaitFor("the first jobs moved", func(string) bool { return seed.Int("LLEN", seed.K.Queue("mail")) > 0 })
	s.Press("esc")
	s.WaitFor("the stop's outcome", func(string) bool {
		return strings.Contains(s.StatusLine(), "stopped: ") && strings.Contains(s.StatusLine(), "the same action again finishes it")
	})
	queued, dead := seed.Int("LLEN", seed.K.Queue("mail")), seed.Int("ZCARD", seed.K.Dead())
	if queued == 0 || queued >= 40 || queued+dead != 42 {
		t.Errorf("after the stop: %d queued, %d dead; want some moved, none lost or doubled (42 in all)", queued, dead)
	}
}
