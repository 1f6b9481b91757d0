package tui_test

import (
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
	"github.com/workq-tui/workq-tui/tui"
)

// On an empty namespace (a typo: the pools are in inc3) the screen names
// the namespace it found, and n ends the screen asking the program to
// open that one; Redis is untouched.
func TestDriveSwitchNamespace(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "inc3")
	seed.LivePool(livePool, "send_email")
	s := screentest.Start(t, srv, "-n", "inc33")
	s.Wait("empty namespace")
	s.WaitFor("the namespace found", func(string) bool { return strings.Contains(s.StatusLine(), "found inc3: n opens inc3") })
	keys := seed.Int("DBSIZE")
	s.Press("n")
	m, ok := s.WaitEnded().(tui.Model)
	if !ok || m.SwitchTo() != "inc3" {
		t.Fatalf("the screen ended with %T asking for %q, want inc3", m, m.SwitchTo())
	}
	if n := seed.Int("DBSIZE"); n != keys {
		t.Errorf("the database holds %d keys after the switch, want the %d it had", n, keys)
	}
}

// n on a namespace that is not empty does nothing and says why.
func TestDriveSwitchNamespaceRefused(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	seed := screentest.NewSeed(t, srv, "work")
	seed.LivePool(livePool, "mail")
	s := screentest.Start(t, srv)
	s.Wait("feedface")
	s.Press("n")
	s.WaitFor("why", func(string) bool {
		return strings.Contains(s.StatusLine(), "opens another namespace when this one holds no gocraft/work keys")
	})
	if s.Ended() {
		t.Fatal("n ended the screen of a namespace with pools")
	}
}
