package poll_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// lastFrame is the screen, keeping the last frame it rendered.
type lastFrame struct {
	inner tea.Model
	mu    *sync.Mutex
	frame *string
}

func (r lastFrame) Init() tea.Cmd { return r.inner.Init() }

func (r lastFrame) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := r.inner.Update(msg)
	return lastFrame{m, r.mu, r.frame}, cmd
}

func (r lastFrame) View() string {
	v := r.inner.View()
	r.mu.Lock()
	*r.frame = v
	r.mu.Unlock()
	return v
}

// countingPoller counts the polls that returned.
type countingPoller struct {
	c *redisq.Client
	n atomic.Int64
}

func (p *countingPoller) Poll(ctx context.Context, req redisq.PollRequest) (*model.Snapshot, error) {
	defer p.n.Add(1)
	return p.c.Poll(ctx, req)
}

// TestScreenBacksOffWhileRedisSleeps: the screen in-process on the real
// poll, a live gocraft/work pool working, and a client making Redis sleep
// 200 ms at a time with DEBUG SLEEP in a loop. The polls take more than a
// tenth of the interval: the header says Redis is slow and polls less
// often. When the loop stops, the header is back to normal within two
// polls.
func TestScreenBacksOffWhileRedisSleeps(t *testing.T) {
	srv := redistest.Start(t, "--enable-debug-command", "local")
	const ns = "conf-backoff"
	gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2, Hold: 5 * time.Millisecond,
		Jobs: []gcstate.JobType{{Name: "tick", Enqueue: 200}}})
	pool := srv.Pool()
	defer pool.Close()
	poller := &countingPoller{c: redisq.NewClient(pool, ns, 0)}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	o := tui.Options{Address: srv.Addr(), Namespace: ns, Interval: 500 * time.Millisecond, Renderer: r,
		Reads: tui.Reads{Poll: poller, Sweep: poller.c}}
	var mu sync.Mutex
	var frame string
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := tea.NewProgram(lastFrame{tui.New(o), &mu, &frame}, tea.WithInput(nil), tea.WithOutput(io.Discard),
		tea.WithContext(ctx), tea.WithoutSignalHandler())
	errc := make(chan error, 1)
	go func() { _, err := p.Run(); errc <- err }()
	defer func() {
		p.Quit()
		if err := <-errc; err != nil {
			t.Errorf("screen: %v", err)
		}
	}()
	header := func() string {
		mu.Lock()
		defer mu.Unlock()
		first, _, _ := strings.Cut(frame, "\n")
		return first
	}
	wait := func(what string, cond func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if cond(header()) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("the header never showed %s; last:\n%s", what, header())
	}
	p.Send(tea.WindowSizeMsg{Width: 160, Height: 30})
	wait("the first poll", func(h string) bool { return strings.Contains(h, "● updated") })
	if strings.Contains(header(), "Redis slow") {
		t.Fatalf("Redis slow before it was: %s", header())
	}

	var sleeping atomic.Bool
	sleeping.Store(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := srv.Dial()
		defer c.Close()
		for sleeping.Load() {
			if _, err := c.Do("DEBUG", "SLEEP", "0.2"); err != nil {
				t.Errorf("DEBUG SLEEP: %v", err)
				return
			}
		}
	}()
	wait("Redis slow", func(h string) bool { return strings.Contains(h, "Redis slow: polling every ") })
	t.Logf("while Redis sleeps: %s", header())
	sleeping.Store(false)
	<-done
	at := poller.n.Load()
	wait("the interval again", func(h string) bool { return !strings.Contains(h, "Redis slow") })
	if n := poller.n.Load() - at; n > 2 {
		t.Errorf("the interval came back after %d polls, want at most 2", n)
	}
}
