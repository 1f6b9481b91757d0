package tui_test

import (
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// f asks for a job ID and lists every place it is; enter goes there.
// :find ID does the same.
func TestDriveFind(t *testing.T) {
	t.Parallel()
	for _, keys := range [][]string{{"f", "rf1", "enter"}, {":find rf1", "enter"}} {
		t.Run(keys[0], func(t *testing.T) {
			srv := redistest.Start(t)
			seed := screentest.NewSeed(t, srv, "work")
			seed.LivePool(livePool, "mail")
			seed.Queue("mail", "q1", "q2")
			seed.Dead("refund", "gateway down", "rf0", "rf1")
			s := screentest.Start(t, srv)
			s.Wait("feedface")
			s.Press(keys...)
			s.Wait("› find rf1]", "find rf1: 1 place", "dead", "refund")
			s.Press("enter")
			s.Wait("[dead 2]", "rf1")
			s.WaitFor("rf1 under the cursor", func(screen string) bool { return containsFields(cursorRow(screen), "rf1") })
		})
	}
}
