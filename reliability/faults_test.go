package reliability_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// poolID makes a 24-character pool ID that reads as its label on screen.
func poolID(label string) string { return (label + strings.Repeat("0", 24))[:24] }

// TestScreenSurvivesRedisRestarts runs the real binary in a terminal and
// stops redis-server under it (twice, and longer than the screen's
// back-off each time; 6 times with WORKQ_STRESS=1): the screen shows the error and the stale data, and
// once Redis is back (empty, then refilled) it shows the new data without a
// key being pressed.
func TestScreenSurvivesRedisRestarts(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	writeHeartbeat(t, c, "work", poolID("first"), now+3600, "host-a", "email")
	c.Close()

	audit := filepath.Join(t.TempDir(), "audit.log")
	s := startTmux(t, 120, 30, nil, "--redis="+srv.Addr(), "--interval=250ms", "--audit-log="+audit)
	s.WaitText(10*time.Second, poolID("first")[:12])
	restarts := 2
	if stress() {
		restarts = 6
	}
	for i := 1; i <= restarts; i++ {
		srv.Stop()
		sc := s.WaitFor(10*time.Second, "the error", func(sc string) bool {
			return strings.Contains(sc, "error") && strings.Contains(sc, "connection refused")
		})
		if !strings.Contains(sc, "STALE") {
			t.Errorf("restart %d: the last data is not marked stale:\n%s", i, sc)
		}
		time.Sleep(time.Duration(i) * 700 * time.Millisecond) // let the back-off grow
		srv.Restart()
		rc := srv.Dial()
		label := fmt.Sprintf("back%d", i)
		writeHeartbeat(t, rc, "work", poolID(label), redistest.Time(t, rc).Unix()+3600, "host-b", "email")
		rc.Close()
		start := time.Now()
		sc = s.WaitFor(20*time.Second, "recovery", func(sc string) bool {
			return strings.Contains(sc, poolID(label)[:12]) && !strings.Contains(sc, "error") && !strings.Contains(sc, "STALE")
		})
		if !strings.Contains(sc, "● updated") {
			t.Errorf("restart %d: header does not say ok:\n%s", i, sc)
		}
		t.Logf("restart %d: recovered %s after Redis came back", i, time.Since(start).Round(10*time.Millisecond))
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
	t.Logf("faults: %d Redis restarts under the running screen, all recovered without a key press", restarts)
}

// TestUnreachableAtStart: every command gets a one-line error naming the
// address and exits 1; the screen shows the error, keeps retrying and shows
// the data once Redis comes up.
func TestUnreachableAtStart(t *testing.T) {
	srv := redistest.Start(t)
	srv.Stop() // its port is now free: nothing listens there
	addr := "--redis=" + srv.Addr()
	cmds := [][]string{
		{"snapshot"}, {"snapshot", "--json"},
		{"reap", "--all-dead", "--yes"}, {"reap", poolID("x"), "--dry-run"},
		{"requeue", "work:jobs:a:" + poolID("x") + ":inprogress", "--yes"},
		{"repair-locks", "a", "--yes"},
	}
	for _, args := range cmds {
		r := runCLI(t, nil, append([]string{addr, "--timeout=2s"}, args...)...)
		if r.Code != 1 {
			t.Errorf("%v: exit %d, want 1; stderr %q", args, r.Code, r.Stderr)
		}
		oneLine(t, fmt.Sprint(args), r.Stderr)
		if !strings.Contains(r.Stderr, srv.Addr()) || !strings.Contains(r.Stderr, "connection refused") {
			t.Errorf("%v: error does not say where and why: %q", args, r.Stderr)
		}
	}

	s := startTmux(t, 120, 30, nil, addr, "--interval=250ms", "--read-only")
	sc := s.WaitText(10*time.Second, "connection refused")
	if !strings.Contains(sc, "no data yet") {
		t.Errorf("screen without data does not say so:\n%s", sc)
	}
	time.Sleep(1500 * time.Millisecond) // several retries
	srv.Restart()
	c := srv.Dial()
	writeHeartbeat(t, c, "work", poolID("late"), redistest.Time(t, c).Unix()+3600, "host", "email")
	s.WaitFor(20*time.Second, "data once Redis is up", func(sc string) bool {
		return strings.Contains(sc, poolID("late")[:12]) && !strings.Contains(sc, "error")
	})
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}

// TestWrongPassword: with requirepass and with an ACL user, a wrong (or
// missing) password gives every command a one-line authentication error,
// exit 1, that never contains the password; the screen shows the same
// without it.
func TestWrongPassword(t *testing.T) {
	const right = "right-horse-battery-1"
	const wrong = "Wr0ng-Pa55word-xyzzy"
	srv := redistest.Start(t, "--requirepass", right)
	c := srv.Dial()
	redistest.Do(t, c, "AUTH", right)
	redistest.Do(t, c, "ACL", "SETUSER", "ops", "on", ">ops-staple-2", "~*", "+@all")
	writeHeartbeat(t, c, "work", poolID("p"), redistest.Time(t, c).Unix()+3600, "h", "email")

	dir := t.TempDir()
	wrongFile := filepath.Join(dir, "wrong")
	if err := os.WriteFile(wrongFile, []byte(wrong+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rightFile := filepath.Join(dir, "right")
	if err := os.WriteFile(rightFile, []byte(right+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmds := [][]string{
		{"snapshot"}, {"snapshot", "--json"},
		{"reap", "--all-dead", "--yes"}, {"reap", "--all-dead", "--dry-run"},
		{"requeue", "work:jobs:email:" + poolID("x") + ":inprogress", "--yes"},
		{"repair-locks", "email", "--yes"},
	}
	auths := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"requirepass, REDIS_PASSWORD wrong", []string{"REDIS_PASSWORD=" + wrong}, nil, "authentication failed"},
		{"requirepass, --password-file wrong", nil, []string{"--password-file=" + wrongFile}, "authentication failed"},
		{"ACL user, wrong password", []string{"REDIS_PASSWORD=" + wrong}, []string{"--user=ops"}, "authentication failed"},
		{"ACL user, another user's password", nil, []string{"--user=ops", "--password-file=" + rightFile}, "authentication failed"},
		{"no password", nil, nil, "authentication required"},
	}
	tried := 0
	for _, a := range auths {
		for _, args := range cmds {
			all := append(append([]string{"--redis=" + srv.Addr()}, a.args...), args...)
			r := runCLI(t, a.env, all...)
			tried++
			out := r.Stdout + r.Stderr
			if r.Code != 1 || !strings.Contains(strings.ToLower(r.Stderr), a.want) {
				t.Errorf("%s, %v: exit %d, stderr %q; want 1 and %q", a.name, args, r.Code, r.Stderr, a.want)
			}
			oneLine(t, a.name+fmt.Sprint(args), r.Stderr)
			if strings.Contains(out, wrong) || strings.Contains(out, right) || strings.Contains(out, "ops-staple-2") {
				t.Errorf("%s, %v: a password is in the output: %q", a.name, args, out)
			}
		}
		// The screen.
		s := startTmux(t, 160, 30, a.env, append(append([]string{"--redis=" + srv.Addr()}, a.args...), "--read-only", "--interval=250ms")...)
		s.WaitText(10*time.Second, "authentication")
		time.Sleep(600 * time.Millisecond) // a retry or two
		sc := s.Screen()
		if strings.Contains(sc, wrong) || strings.Contains(sc, right) {
			t.Errorf("%s: a password is on the screen:\n%s", a.name, sc)
		}
		if !strings.Contains(sc, a.want) {
			t.Errorf("%s: the screen does not say %q:\n%s", a.name, a.want, sc)
		}
		s.Keys("q")
		s.WaitText(5*time.Second, "EXITED 0")
		tried++
	}
	// And the right password works.
	if r := runCLI(t, []string{"REDIS_PASSWORD=" + right}, "--redis="+srv.Addr(), "snapshot"); r.Code != 0 || strings.Contains(r.Stdout+r.Stderr, right) {
		t.Errorf("right password: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	t.Logf("bad credentials: %d runs (commands and screens), none printed a password", tried)
}
