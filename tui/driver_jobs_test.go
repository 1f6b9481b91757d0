package tui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// deadJobs seeds a live pool serving mail, 40 dead mail jobs (m00 the
// oldest), 2 dead refund jobs no pool serves, and one mail job to retry.
func deadJobs(t *testing.T) (*redistest.Server, *screentest.Seed) {
	t.Helper()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail")
	var ids []string
	for i := range 40 {
		ids = append(ids, fmt.Sprintf("m%02d", i))
	}
	seed.Dead("mail", "smtp 421", ids...)
	seed.Dead("refund", "gateway down", "rf0", "rf1")
	seed.Retry("mail", "smtp 450", "x1")
	return srv, seed
}

// deadJobsShown opens the Jobs view on deadJobs's dead set, its first
// page (the newest, m39 first) read.
func deadJobsShown(t *testing.T) (*screentest.Screen, *screentest.Seed) {
	t.Helper()
	srv, seed := deadJobs(t)
	s := screentest.Start(t, srv)
	s.Run("jobs dead")
	s.Wait("1-20 of 42", "m39")
	return s, seed
}

// The Jobs view reads the dead set a page at a time: pgdown pages on, v
// turns the order, s goes to the next set.
func TestDriveJobsPagingOrderAndSets(t *testing.T) {
	t.Parallel()
	srv, _ := deadJobs(t)
	s := screentest.Start(t, srv)
	s.Run("jobs dead")
	s.Wait("[dead 42]", "newest first  1-20 of 42", "> ", "m39")
	s.Press("pgdown")
	s.Wait("21-40 of 42", "m19")
	s.Press("pgdown")
	s.Wait("41-42 of 42")
	s.Press("v")
	s.Wait("oldest first  1-20 of 42")
	s.WaitFor("the oldest job under the cursor", func(screen string) bool { return strings.Contains(cursorRow(screen), "m00") })
	s.Press("s")
	s.Wait("[retry 1]", "1-1 of 1", "x1", "smtp 450")
	s.Press("s")
	s.Wait("[scheduled 0]")
	s.Press("s")
	s.Wait("[dead 42]")
}

// S summarises the set by job type and error; enter on a job type lists
// its jobs alone.
func TestDriveJobsSummary(t *testing.T) {
	t.Parallel()
	s, _ := deadJobsShown(t)
	s.Press("S")
	screen := s.Wait("summary of dead: 42 members", "COUNT JOB TYPE")
	for _, want := range []string{"40 mail", "2 refund", "40 smtp N", "2 gateway down"} {
		if !containsFields(screen, want) {
			t.Errorf("the summary lacks %q:\n%s", want, screen)
		}
	}
	s.Press("j", "enter")
	s.Wait("where job:refund", "1-2 of 2", "rf0", "rf1")
}

// space marks jobs, R requeues the marked ones: they leave the dead set
// for their queue.
func TestDriveJobsRequeueMarked(t *testing.T) {
	t.Parallel()
	s, seed := deadJobsShown(t)
	s.Press("space")
	s.Wait("1 marked")
	s.Press("j", "space")
	s.Wait("2 marked")
	s.Press("R")
	s.Wait("y: run it")
	if got := s.DialogTitle(); got != "Requeue 2 jobs from dead?" {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the requeue", func(string) bool { return seed.Int("LLEN", seed.K.Queue("mail")) == 2 })
	if n := seed.Int("ZCARD", seed.K.Dead()); n != 40 {
		t.Errorf("dead set holds %d, want 40", n)
	}
	s.Wait("[dead 40]")
}

// :where selects by a query; A marks every job it matches, D deletes
// them; the other jobs stay.
func TestDriveJobsWhereMarkAllDelete(t *testing.T) {
	t.Parallel()
	s, seed := deadJobsShown(t)
	s.Run("where job:refund")
	s.Wait("where job:refund", "1-2 of 2")
	s.Press("A")
	s.Wait("all 2 matching marked")
	s.Press("D")
	s.Wait("y: run it")
	if got := s.DialogTitle(); !strings.Contains(got, "Delete 2 jobs") {
		t.Errorf("dialog title %q", got)
	}
	s.Confirm()
	s.WaitFor("the delete", func(string) bool { return seed.Int("ZCARD", seed.K.Dead()) == 40 })
	if n := seed.Int("LLEN", seed.K.Queue("refund")); n != 0 {
		t.Errorf("a delete queued %d jobs", n)
	}
	s.Wait("[dead 40]")
}

// / in the Jobs view takes the same query as :where.
func TestDriveJobsFilterQuery(t *testing.T) {
	t.Parallel()
	s, _ := deadJobsShown(t)
	s.Press("/", "err:gateway", "enter")
	s.Wait("where err:gateway", "1-2 of 2", "rf0")
	s.Press("esc")
	s.Wait("1-20 of 42")
}

// R on dead jobs no live pool serves opens the plan with the warning: y
// does nothing there, F plans them with force, and y then requeues them.
// Through the program's planner: the dialog opens with the jobs counted.
func TestDriveJobsRequeueUnserved(t *testing.T) {
	t.Parallel()
	s, seed := deadJobsShown(t)
	s.Run("where job:refund")
	s.Wait("1-2 of 2")
	s.Press("R")
	s.Wait("no live pool serves refund", "F: requeue anyway")
	if got := s.DialogTitle(); got != "Requeue 1 job from dead?" {
		t.Errorf("dialog title %q", got)
	}
	if !strings.Contains(s.Dialog(), "rf") {
		t.Errorf("the plan does not list the job:\n%s", s.Dialog())
	}
	s.Press("y", "tab") // tab: y has been handled when the view would change
	if n := seed.Int("ZCARD", seed.K.Dead()); n != 42 {
		t.Fatalf("y in the refused plan changed the dead set: %d", n)
	}
	s.ConfirmWith("F", "F: requeue anyway")
	s.Wait("--force given")
	s.Confirm()
	s.WaitFor("the requeue", func(string) bool { return seed.Int("LLEN", seed.K.Queue("refund")) == 1 })
	if n := seed.Int("ZCARD", seed.K.Dead()); n != 41 {
		t.Errorf("dead set holds %d, want 41", n)
	}
}

// enter opens a job whole; esc comes back to the list.
func TestDriveJobsDetail(t *testing.T) {
	t.Parallel()
	srv, _ := deadJobs(t)
	s := screentest.Start(t, srv)
	s.Run("jobs retry")
	s.Wait("[retry 1]", "x1")
	s.Press("enter")
	s.Wait("› job]", "retry_at", "smtp 450")
	s.Press("esc")
	s.Wait("[retry 1]")
}

// cursorRow is the line the cursor is on ("> ..."), "" when none.
func cursorRow(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), ">") {
			return l
		}
	}
	return ""
}

// containsFields reports whether a line of screen holds want's words in
// a row, whatever the spaces between them.
func containsFields(screen, want string) bool {
	w := strings.Join(strings.Fields(want), " ")
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(strings.Join(strings.Fields(l), " "), w) {
			return true
		}
	}
	return false
}
