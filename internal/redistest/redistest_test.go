package redistest

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestBinaryBuiltOnce: every call returns the same binary, which runs.
func TestBinaryBuiltOnce(t *testing.T) {
	a, b := Binary(t), Binary(t)
	if a != b {
		t.Fatalf("two builds: %s and %s", a, b)
	}
	if r := Run(t, a, nil, "version"); r.Code != 0 || r.Stdout == "" {
		t.Fatalf("version: exit %d, %q %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := Run(t, a, nil, "no-such-command"); r.Code != 2 || !strings.Contains(r.Stderr, "no-such-command") {
		t.Fatalf("unknown command: exit %d, %q", r.Code, r.Stderr)
	}
}

// TestTmux drives a shell in tmux: the environment given reaches it and
// REDIS_PASSWORD does not, keys arrive, and the exit status is shown.
func TestTmux(t *testing.T) {
	t.Setenv("REDIS_PASSWORD", "secret")
	s := StartTmux(t, 60, 10, []string{"GREETING=hello"}, "sh", "-c",
		`echo "$GREETING $TERM [$REDIS_PASSWORD]"; read x; echo "got $x"; exit 3`)
	s.WaitText(5*time.Second, "hello xterm-256color []")
	s.Keys("abc", "Enter")
	screen := s.WaitText(5*time.Second, "got abc", "EXITED 3")
	if strings.Contains(screen, "secret") {
		t.Fatalf("REDIS_PASSWORD reached the program:\n%s", screen)
	}
	s.Kill()
	s.Kill()
}

// TestDoAndTime: Do returns the reply; Time is the server's clock.
func TestDoAndTime(t *testing.T) {
	srv := Start(t)
	c := srv.Dial()
	if v := Do(t, c, "SET", "k", "v"); v != "OK" {
		t.Fatalf("SET: %v", v)
	}
	if d := time.Since(Time(t, c)); d < -time.Minute || d > time.Minute {
		t.Fatalf("TIME is %v away from this machine's clock", d)
	}
}

// TestStall: a stalled server holds another client's command for one of
// its sleeps, and no longer after stop. No fixed wait: PINGs are sent until
// one is held (the stall's goroutine may not have sent its first sleep yet),
// and the PING after stop is compared with that one.
func TestStall(t *testing.T) {
	const each = 300 * time.Millisecond
	s := Start(t, DebugArgs()...)
	stop := s.Stall(t, each)
	c := s.Dial()
	defer c.Close()
	ping := func() time.Duration {
		began := time.Now()
		if _, err := c.Do("PING"); err != nil {
			t.Fatal(err)
		}
		return time.Since(began)
	}
	var stalled time.Duration
	for i := 0; i < 50 && stalled < each/3; i++ {
		stalled = max(stalled, ping())
	}
	if stalled < each/3 {
		t.Fatalf("no PING of 50 was held by a sleep of %v (longest %v)", each, stalled)
	}
	stop()
	if free := ping(); free >= stalled {
		t.Fatalf("PING took %v after stop, no less than the %v it was held while stalled", free, stalled)
	}
}
