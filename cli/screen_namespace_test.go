package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// TestScreenEmptyNamespace runs the screen on a real redis-server with a
// typo in the namespace (inc33; the pools are in inc3) through the
// program's reader: the header's first line at 80 columns counts the empty
// namespace, the status line names inc3, and n ends the screen asking for
// inc3, read-only as it is.
func TestScreenEmptyNamespace(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("inc3")
	now := time.Now().Unix()
	srv.Do("SADD", k.WorkerPools(), "aaaaaaaaaaaaaaaaaaaaaaaa")
	srv.Do("HSET", k.Heartbeat("aaaaaaaaaaaaaaaaaaaaaaaa"), "heartbeat_at", now, "started_at", now, "job_names", "send_email",
		"concurrency", 1, "worker_ids", "w1", "host", "h", "pid", 1)
	srv.Do("SADD", k.KnownJobs(), "send_email")

	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	client := redisq.NewDialerClient(d, "inc33", 0)
	defer client.Close()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	opts := tui.Options{
		Address: srv.Addr(), Namespace: "inc33", Interval: time.Hour, Renderer: r, ReadOnly: true,
		SwitchNamespace: true,
		Reads:           tui.Reads{Poll: redisq.NewPoller(client), Namespaces: client},
	}
	tm := teatest.NewTestModel(t, tui.New(opts), teatest.WithInitialTermSize(80, 24))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("empty namespace")) && bytes.Contains(b, []byte("found inc3: n opens inc3"))
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	m, ok := final.(tui.Model)
	if !ok {
		t.Fatalf("final model %T", final)
	}
	if m.SwitchTo() != "inc3" {
		t.Errorf("SwitchTo = %q, want inc3", m.SwitchTo())
	}
	first := bytes.SplitN([]byte(m.View()), []byte("\n"), 2)[0]
	if !bytes.Contains(first, []byte("✖ 1 problem: 1 empty namespace")) {
		t.Errorf("header's first line: %q", first)
	}
	if n, _ := srv.Do("DBSIZE").(int64); n != 3 {
		t.Errorf("the database holds %d keys after the switch, want the 3 it had", n)
	}
}

// TestScreenSwitchesNamespaceInATerminal: the program itself, on a
// terminal, on the typo inc33: n closes that screen and opens inc3's,
// whose pool is on it and whose header names inc3.
func TestScreenSwitchesNamespaceInATerminal(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("inc3")
	now := time.Now().Unix()
	srv.Do("SADD", k.WorkerPools(), "aaaaaaaaaaaaaaaaaaaaaaaa")
	srv.Do("HSET", k.Heartbeat("aaaaaaaaaaaaaaaaaaaaaaaa"), "heartbeat_at", now, "started_at", now, "job_names", "send_email",
		"concurrency", 1, "worker_ids", "w1", "host", "h", "pid", 1)
	srv.Do("SADD", k.KnownJobs(), "send_email")
	s := redistest.StartTmux(t, 100, 30, []string{"NO_COLOR=1"}, redistest.Binary(t), "--redis", srv.Addr(), "-n", "inc33", "--read-only")
	s.WaitText(15*time.Second, "empty namespace", "n opens inc3")
	s.Keys("n")
	screen := s.WaitText(15*time.Second, "ns inc3", "aaaaaaaaaaaaaaaaaaaaaaaa")
	if strings.Contains(screen, "empty namespace") {
		t.Errorf("inc3's screen still says the namespace is empty:\n%s", screen)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
