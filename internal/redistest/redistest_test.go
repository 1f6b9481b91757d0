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

// TestStall: a stalled server answers another client only after a sleep,
// and sooner again after stop.
func TestStall(t *testing.T) {
	s := Start(t, DebugArgs()...)
	stop := s.Stall(t, 300*time.Millisecond)
	time.Sleep(50 * time.Millisecond) // the first sleep has started
	c := s.Dial()
	defer c.Close()
	began := time.Now()
	if _, err := c.Do("PING"); err != nil {
		t.Fatal(err)
	}
	stalled := time.Since(began)
	stop()
	began = time.Now()
	if _, err := c.Do("PING"); err != nil {
		t.Fatal(err)
	}
	if free := time.Since(began); stalled < 100*time.Millisecond || free >= stalled {
		t.Fatalf("PING took %v while stalled and %v after stop; want the first held by the sleep", stalled, free)
	}
}
