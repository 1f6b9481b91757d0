package reliability_test

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gomodule/redigo/redis"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

const (
	roNS     = "work"
	roDead   = "dddddddddddddddddddddddd"
	roLive   = "aaaaaaaaaaaaaaaaaaaaaaaa"
	roOrphan = "oooooooooooooooooooooooo"
)

// roState writes a namespace with something for every action to do: a dead
// pool holding jobs, a live pool, an orphaned in-progress list and a
// drifted lock. It returns the orphan's key.
func roState(t testing.TB, c redis.Conn) string {
	t.Helper()
	now := redistest.Time(t, c).Unix()
	p := prefix(roNS)
	writeHeartbeat(t, c, roNS, roDead, now-120, "host-dead", "email", "report")
	writeHeartbeat(t, c, roNS, roLive, now+3600, "host-live", "email", "report")
	for i := 0; i < 5; i++ {
		redistest.Do(t, c, "LPUSH", p+"jobs:email:"+roDead+":inprogress", jobJSON("email", fmt.Sprintf("d%d", i), now-200, `{"to":"x"}`))
	}
	redistest.Do(t, c, "SET", p+"jobs:email:lock", 5)
	redistest.Do(t, c, "HSET", p+"jobs:email:lock_info", roDead, 5)
	for i := 0; i < 3; i++ {
		redistest.Do(t, c, "LPUSH", p+"jobs:email", jobJSON("email", fmt.Sprintf("q%d", i), now-50, `{}`))
	}
	orphan := p + "jobs:report:" + roOrphan + ":inprogress"
	redistest.Do(t, c, "LPUSH", orphan, jobJSON("report", "o1", now-300, `{}`))
	redistest.Do(t, c, "SET", p+"jobs:report:lock", 7) // drifted: nothing holds it
	return orphan
}

// TestReadOnlyCommandsNeverWrite runs every command with --read-only
// against a real redis-server that has something for each to do, and reads
// INFO commandstats afterwards: no write command and no script call, the
// dirty counter unchanged, every key as it was.
func TestReadOnlyCommandsNeverWrite(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	orphan := roState(t, c)
	before := redistest.Dump(t, c, "*")
	w := watchWrites(t, c)

	addr := "--redis=" + srv.Addr()
	cases := []struct {
		args     []string
		wantCode int
		want     string // in stdout+stderr
	}{
		{[]string{"snapshot", "--wide"}, 3, roDead},
		{[]string{"snapshot", "--json"}, 3, roOrphan},
		{[]string{"snapshot", "--dead-after=1s"}, 3, "dead"},
		{[]string{"reap", "--all-dead", "--yes"}, 1, "read-only"},
		{[]string{"reap", roDead, "--yes", "--batch=1"}, 1, "read-only"},
		{[]string{"reap", "--all-dead", "--dry-run"}, 0, "Dry run: nothing changed"},
		{[]string{"requeue", orphan, "--yes"}, 1, "read-only"},
		{[]string{"requeue", "--dry-run", orphan}, 0, "Dry run: nothing changed"},
		{[]string{"repair-locks", "report", "--yes"}, 1, "read-only"},
		{[]string{"repair-locks", "--dry-run", "report", "email"}, 0, "Dry run: nothing changed"},
		{[]string{"remove-leaked", "--yes"}, 1, "read-only"},
		{[]string{"remove-leaked", "--dry-run"}, 0, "Nothing to remove"},
		{[]string{"undo", "--yes"}, 1, "read-only"},
		{[]string{"undo", "20261201-000000-001", "--yes"}, 1, "read-only"},
		{[]string{}, 2, "terminal"}, // the screen, without a terminal
		{[]string{"version"}, 0, "workq-tui"},
	}
	for _, tc := range cases {
		args := append([]string{addr, "--read-only"}, tc.args...)
		r := runCLI(t, nil, args...)
		out := r.Stdout + r.Stderr
		switch {
		case tc.wantCode >= 0 && r.Code != tc.wantCode,
			tc.wantCode < 0 && r.Code == 0:
			t.Errorf("%v: exit %d, want %d; output:\n%s", tc.args, r.Code, tc.wantCode, out)
		case !strings.Contains(out, tc.want):
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out)
		}
		if first, _, _ := strings.Cut(r.Stderr, "\n"); tc.want == "read-only" && !strings.Contains(first, "read-only") {
			t.Errorf("%v: the first line of stderr does not say why: %q", tc.args, r.Stderr)
		}
	}
	seen, writes := w.check(t)
	if seen["smembers"] == 0 || seen["hgetall"] == 0 || seen["scan"] == 0 {
		t.Errorf("the snapshots did not read the namespace (commands seen: %v)", seen)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Errorf("Redis changed under --read-only")
	}
	t.Logf("read-only commands: %d runs, commands seen %v, write commands seen %d", len(cases), seen, writes)
}

// everyKey is every binding of the screen (tui/keys.go), as tmux key names,
// in an order that visits each view, the detail view, the filter, the help
// and would open and confirm both reap dialogs if they could open.
var everyKey = [][]string{
	{"Down"}, {"j"}, {"Up"}, {"k"}, {"NPage"}, {"PPage"}, {"G"}, {"End"}, {"g"}, {"Home"},
	{"x"}, {"y"}, {"X"}, {"y"}, {"n"},
	{"Enter"}, {"Down"}, {"Up"}, {"NPage"}, {"PPage"}, {"G"}, {"g"}, {"x"}, {"y"}, {"X"}, {"y"}, {"r"}, {"Escape"},
	{"Tab"}, {"Down"}, {"j"}, {"k"}, {"Up"}, {"x"}, {"X"}, {"y"}, {"Enter"}, {"r"},
	{"BTab"}, {"/"}, {"-l", "dead"}, {"Enter"}, {"x"}, {"y"}, {"Escape"}, {"/"}, {"-l", "zz"}, {"Escape"},
	{"?"}, {"x"}, {"y"}, {"?"}, {"r"}, {"X"}, {"y"}, {"Y"}, {"Escape"},
}

// TestReadOnlyScreenNeverWrites runs the real binary with --read-only in a
// terminal (tmux), presses every key of the screen, quits, and reads INFO
// commandstats.
func TestReadOnlyScreenNeverWrites(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	roState(t, c)
	before := redistest.Dump(t, c, "*")
	w := watchWrites(t, c)

	s := startTmux(t, 120, 40, nil, "--redis="+srv.Addr(), "--read-only", "--interval=250ms")
	s.WaitText(10*time.Second, roDead[:12])
	if sc := s.Screen(); !strings.Contains(sc, "READ-ONLY") {
		t.Fatalf("no READ-ONLY badge:\n%s", sc)
	}
	for _, k := range everyKey {
		s.Keys(k...)
		time.Sleep(40 * time.Millisecond)
	}
	time.Sleep(600 * time.Millisecond) // a few more polls and peeks
	// ctrl+c: the other quit key (q quits the other screen tests).
	s.Keys("C-c")
	s.WaitText(5*time.Second, "EXITED 0")

	seen, writes := w.check(t)
	if seen["hgetall"] < 2 || seen["lrange"] == 0 {
		t.Errorf("the screen did not poll and peek (commands seen: %v)", seen)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Errorf("Redis changed under --read-only")
	}
	t.Logf("read-only screen: %d key presses, commands seen %v, write commands seen %d", len(everyKey)+1, seen, writes)
}

// asciiRenderer renders no colour or style at all: any ESC in a view is a
// leak from data.
func asciiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return r
}

// teaKey turns a key name of everyKey into a bubbletea key message.
func teaKey(k string) tea.KeyMsg {
	switch k {
	case "Down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "Up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "NPage":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "PPage":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "End":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "Home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "Enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "Escape":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "Tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "BTab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// runModel runs the screen in-process with the given options and key
// presses (after the first snapshot shows), and returns the final view.
// waitForDialog, among the presses of runModel, waits until a dialog that
// just opened takes its y.
const waitForDialog = "<wait for the dialog>"

func runModel(t *testing.T, o tui.Options, presses []string, settle time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := tea.NewProgram(tui.New(o), tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithContext(ctx),
		tea.WithoutSignalHandler())
	go func() {
		p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
		time.Sleep(2 * o.Interval)
		gap := 20 * time.Millisecond
		if len(presses) > 500 {
			gap = 2 * time.Millisecond // make stress: thousands of presses
		}
		for _, k := range presses {
			if k == waitForDialog {
				time.Sleep(2 * tui.DialogReadTime)
				continue
			}
			p.Send(teaKey(k))
			time.Sleep(gap)
		}
		time.Sleep(settle)
		p.Quit()
	}()
	final, err := p.Run()
	if err != nil {
		t.Fatalf("screen: %v", err)
	}
	return final.View()
}

// TestReadOnlyModelWithReadOnlyReaper drives the tui model in-process with
// the real redisq source and a real reaper, both on read-only connections.
// Once with the screen in read-only mode (actions hidden), once with the
// screen's own flag off, so that confirmed reaps reach the reaper and only
// the connection guard stands between them and Redis: the guard must refuse
// them before anything is sent.
func TestReadOnlyModelWithReadOnlyReaper(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	roState(t, c)
	before := redistest.Dump(t, c, "*")

	for _, screenReadOnly := range []bool{true, false} {
		t.Run(fmt.Sprintf("screen read-only %v", screenReadOnly), func(t *testing.T) {
			w := watchWrites(t, c)
			d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), ReadOnly: true, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			client := redisq.NewDialerClient(d, roNS, 0)
			defer client.Close()
			pool := d.Pool()
			defer pool.Close()
			rp := reaper.NewReaper(pool, roNS, 1)
			o := tui.Options{
				Address: d.Endpoint().String(), Namespace: roNS, ReadOnly: screenReadOnly,
				Interval: 250 * time.Millisecond, StatusTTL: time.Minute, Renderer: asciiRenderer(),
				Reads:  tui.Reads{Poll: redisq.NewPoller(client), Peek: redisq.RawPeeker{Client: client}},
				Writes: tui.Writes{Reap: rp, Requeue: rp, Repair: rp},
			}
			var presses []string
			for _, k := range everyKey {
				presses = append(presses, k[len(k)-1])
			}
			if stress() {
				// make stress: 3,000 more presses drawn at random.
				rng := rand.New(rand.NewSource(time.Now().UnixNano()))
				for i := 0; i < 3000; i++ {
					k := everyKey[rng.Intn(len(everyKey))]
					presses = append(presses, k[len(k)-1])
				}
			}
			// Last: reap all and confirm, so the final view shows its outcome.
			// A dialog's y counts once the dialog has been on screen a while.
			presses = append(presses, "Escape", "Escape", "X", waitForDialog, "y")
			view := runModel(t, o, presses, 800*time.Millisecond)
			if !strings.Contains(view, "2 pools · dead pools 1") {
				t.Errorf("the screen shows no data:\n%s", view)
			}
			if !screenReadOnly && !strings.Contains(view, "read-only") {
				t.Errorf("the refused reap is not on the screen:\n%s", view)
			}
			seen, writes := w.check(t)
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Errorf("Redis changed")
			}
			t.Logf("commands seen %v, write commands seen %d", seen, writes)
		})
	}
}

// TestReadOnlyACLUser: a Redis user limited to +@read (and nothing else:
// no TIME, no PING, no INFO) can use snapshot and the screen in --read-only.
func TestReadOnlyACLUser(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	roState(t, c)
	redistest.Do(t, c, "ACL", "SETUSER", "reader", "on", ">reader-secret-42", "~*", "resetchannels", "-@all", "+@read")
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("reader-secret-42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := watchWrites(t, c)
	common := []string{"--redis=" + srv.Addr(), "--user=reader", "--password-file=" + pwFile, "--read-only"}

	r := runCLI(t, nil, append(common, "snapshot", "--wide")...)
	if r.Code != 3 || !strings.Contains(r.Stdout, roDead) || !strings.Contains(r.Stdout, "email") {
		t.Fatalf("snapshot as +@read user: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = runCLI(t, nil, append(common, "snapshot", "--json")...)
	if r.Code != 3 || !strings.Contains(r.Stdout, roOrphan) {
		t.Fatalf("snapshot --json as +@read user: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}

	s := startTmux(t, 120, 40, nil, append(common, "--interval=250ms")...)
	sc := s.WaitText(10*time.Second, roDead[:12])
	if strings.Contains(strings.ToLower(sc), "noperm") {
		t.Errorf("the screen shows a permission error:\n%s", sc)
	}
	s.Keys("Enter")
	sc = s.WaitText(5*time.Second, "in-progress jobs: showing")
	if strings.Contains(sc, "could not read") {
		t.Errorf("the detail view could not peek as a +@read user:\n%s", sc)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
	w.check(t)
}
