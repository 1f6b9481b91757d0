package tui_test

import (
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// The Workers view lists what each busy worker runs, from the workers'
// observations; enter shows the job's arguments.
func TestDriveWorkers(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail")
	seed.Do("HSET", "work:worker:w1", "job_name", "mail", "job_id", "m9", "started_at", seed.Now-30,
		"args", `{"to":"ops@example.com"}`, "checkin", "half", "checkin_at", seed.Now-5)
	s := screentest.Start(t, srv)
	s.Run("workers")
	s.Wait("[Workers]", "w1", "mail", "half")
	s.Press("enter")
	// The list's own pane shows the arguments too: the view of them is
	// on screen once the list's column titles are gone.
	s.WaitGone("CHECKIN")
	s.Wait("ARGUMENTS of mail m9", `"to": "ops@example.com"`)
	s.Press("esc")
	s.Wait("CHECKIN")
}
