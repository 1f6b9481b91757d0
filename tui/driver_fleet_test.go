package tui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/screentest"
)

// fleet seeds two Redis servers, east with a dead pool holding a mail job
// and west with a live pool alone, and opens the fleet screen of a
// configuration file naming both, with the flags args.
func fleet(t *testing.T, args ...string) (s *screentest.Screen, east, west *screentest.Seed) {
	t.Helper()
	srvE, srvW := redistest.Start(t), redistest.Start(t)
	east, west = screentest.NewSeed(t, srvE, "work"), screentest.NewSeed(t, srvW, "work")
	east.DeadPool(deadPool, "mail")
	east.Running(deadPool, "mail", "m1")
	west.LivePool(livePool, "mail")
	cfg := screentest.Config(t, fmt.Sprintf("[targets.east]\nredis = %q\n\n[targets.west]\nredis = %q\n", srvE.Addr(), srvW.Addr()))
	s = screentest.StartFleet(t, append(append(cfg, "--all-targets"), args...)...)
	s.Wait("2 targets", "east", "west")
	return s, east, west
}

// :target NAME on a target's screen shows the other target: the bar and
// the header name it and its data replaces the first one's; tab completes
// the names; a name the fleet lacks is refused. A reap after the switches
// writes to the Redis of the target shown, and only to it.
func TestDriveFleetTarget(t *testing.T) {
	t.Parallel()
	s, east, west := fleet(t)
	s.Press("enter")
	first := "east"
	if !strings.Contains(s.Wait("fleet › "), "fleet › east") {
		first = "west"
	}
	other := map[string]string{"east": "west", "west": "east"}[first]
	s.Run("target " + other)
	s.Wait("fleet › "+other, "  "+other+"  127.0.0.1:")
	s.WaitGone("fleet › " + first)
	s.Press(":target "+first[:2], "tab")
	s.Wait(":target " + first)
	s.Press("enter")
	s.Wait("fleet › "+first, "  "+first+"  127.0.0.1:")
	s.Run("target nowhere")
	s.WaitFor("the refusal", func(string) bool { return strings.Contains(s.StatusLine(), `no target "nowhere"`) })
	s.Wait("fleet › " + first)

	s.Run("target east")
	s.Wait("fleet › east", "DEAD   deadbeef")
	s.Press("X")
	s.Wait("east: Reap 1 dead pool?")
	s.Confirm()
	s.WaitFor("the reap", func(string) bool { return !east.Exists(east.K.Heartbeat(deadPool)) })
	if n := east.Int("LLEN", east.K.Queue("mail")); n != 1 {
		t.Errorf("east's mail queue holds %d jobs after the reap, want 1", n)
	}
	if !west.Exists(west.K.Heartbeat(livePool)) || west.Int("LLEN", west.K.Queue("mail")) != 0 {
		t.Error("a reap on east changed west")
	}
}

// :target on the screen of one Redis says it is the fleet's.
func TestDriveTargetOutsideFleet(t *testing.T) {
	t.Parallel()
	srv, _ := deadAndLive(t)
	s := screentest.Start(t, srv)
	s.Wait("DEAD   deadbeef")
	s.Run("target west")
	s.WaitFor("why", func(string) bool {
		return strings.Contains(s.StatusLine(), ":target switches between the targets of a fleet")
	})
	s.Wait("[Pools]", "DEAD   deadbeef")
}

// The fleet's own keys: j and k move between the targets, r reads every
// target at once (polls an hour apart here), enter opens the one under
// the cursor and esc comes back to it, ? shows the help, q ends.
func TestDriveFleetKeys(t *testing.T) {
	t.Parallel()
	s, _, west := fleet(t, "--interval", "1h", "--sweep-interval", "1h")
	s.WaitFor("both targets read", func(screen string) bool {
		return fleetDead(screen, "east") == "1" && fleetDead(screen, "west") == "0"
	})
	s.Wait("> east", "east: 127.0.0.1:")
	s.Press("j")
	s.Wait("> west", "west: 127.0.0.1:")
	s.Press("k")
	s.Wait("> east", "east: 127.0.0.1:")
	s.Press("j")
	s.Wait("> west", "west: 127.0.0.1:")
	west.DeadPool("deadbeef0000000000000005", "mail")
	west.Running("deadbeef0000000000000005", "mail", "w1")
	s.Press("r")
	s.WaitFor("west's dead pool", func(screen string) bool { return fleetDead(screen, "west") == "1" })
	s.Press("enter")
	s.Wait("fleet › west", "DEAD   deadbeef")
	s.Press("esc")
	s.Wait("2 targets", "> west")
	s.Press("?")
	s.Wait("open target", "refresh all", "pgdn")
	s.Press("q")
	s.WaitEnded()
}

// fleetDead is the DEAD column of target name's row on the fleet view,
// "" when there is no such row.
func fleetDead(screen, name string) string {
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), ">"))
		if len(f) > 4 && f[0] == name {
			return f[4]
		}
	}
	return ""
}
