package tui_test

import (
	"testing"

	"github.com/workq-tui/workq-tui/internal/screentest"
)

// waitCursor waits until the cursor's row holds id.
func waitCursor(t *testing.T, s *screentest.Screen, id string) {
	t.Helper()
	s.WaitFor(id+" under the cursor", func(screen string) bool { return containsFields(cursorRow(screen), id) })
}

// The cursor keys on the Jobs view's 40 mail jobs, newest (m39) first,
// read 20 a page: k/up and j/down move a row, G/end go to the page's last
// row and g/home to its first, pgdown and pgup read the next and the
// previous page.
func TestDriveCursorKeys(t *testing.T) {
	t.Parallel()
	srv, _ := deadJobs(t)
	s := screentest.Start(t, srv)
	s.Run("jobs dead")
	s.Wait("1-20 of 42")
	s.Run("where job:mail")
	s.Wait("where job:mail  1-20 of 40")
	waitCursor(t, s, "m39")
	for _, step := range []struct{ key, page, id string }{
		{"j", "1-20 of 40", "m38"}, {"down", "1-20 of 40", "m37"},
		{"k", "1-20 of 40", "m38"}, {"up", "1-20 of 40", "m39"},
		{"G", "1-20 of 40", "m20"}, {"g", "1-20 of 40", "m39"},
		{"end", "1-20 of 40", "m20"}, {"home", "1-20 of 40", "m39"},
		{"pgdown", "21-40 of 40", "m19"}, {"G", "21-40 of 40", "m00"},
		{"pgup", "1-20 of 40", "m39"},
	} {
		s.Press(step.key)
		s.Wait("where job:mail  " + step.page)
		waitCursor(t, s, step.id)
	}
}

// On a list view (the pools: the dead one first, then the live ones by
// ID) the same keys move the cursor between rows.
func TestDriveCursorKeysList(t *testing.T) {
	t.Parallel()
	srv, seed := deadAndLive(t)
	seed.LivePool("abcdef000000000000000003", "mail")
	s := screentest.Start(t, srv)
	s.Wait("3 pools")
	waitCursor(t, s, "host-dead:4242")
	for _, step := range []struct{ key, host string }{
		{"j", "host-abcd"}, {"down", "host-feed"}, {"k", "host-abcd"}, {"up", "host-dead"},
		{"G", "host-feed"}, {"g", "host-dead"}, {"end", "host-feed"}, {"home", "host-dead"},
		{"pgdown", "host-feed"}, {"pgup", "host-dead"},
	} {
		s.Press(step.key)
		waitCursor(t, s, step.host+":4242")
	}
}
