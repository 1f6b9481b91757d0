package poll_test

import (
	"context"
	"io"
	"strings"
	"sync"
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

// workersPolls is the screen's Poller (redisq's) recording, for each poll
// that returned, whether it asked for the workers and how many it read
// (-1: not read).
type workersPolls struct {
	p     *redisq.Poller
	mu    sync.Mutex
	asked []bool
	read  []int
}

func (w *workersPolls) Poll(ctx context.Context, req redisq.PollRequest) (*model.Snapshot, error) {
	snap, err := w.p.Poll(ctx, req)
	if err == nil {
		n := -1
		if snap.Workers != nil {
			n = len(snap.Workers)
		}
		w.mu.Lock()
		w.asked, w.read = append(w.asked, req.Workers), append(w.read, n)
		w.mu.Unlock()
	}
	return snap, err
}

// since is what the polls after the first n asked and read.
func (w *workersPolls) since(n int) ([]bool, []int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]bool(nil), w.asked[n:]...), append([]int(nil), w.read[n:]...)
}

func (w *workersPolls) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.asked)
}

// TestScreenReadsWorkersOnTheirView: the screen in process on the real
// poll, a real gocraft/work pool whose three workers hold a job each (the
// observer writes their observations). On the Pools view the polls read
// no worker; tab to the Workers view polls at once and shows the three
// jobs; leaving it, the polls stop reading them.
func TestScreenReadsWorkersOnTheirView(t *testing.T) {
	srv := redistest.Start(t)
	const ns = "conf-workers"
	gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 3, Block: true,
		Jobs: []gcstate.JobType{{Name: "slow_report", Enqueue: 3}}})
	pool := srv.Pool()
	defer pool.Close()
	client := redisq.NewClient(pool, ns, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The observer writes in the background: wait for the three.
	for {
		snap, err := client.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(model.BusyWorkers(snap.Workers)) == 3 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the pool's workers never all showed busy: %+v", snap.Workers)
		}
		time.Sleep(20 * time.Millisecond)
	}

	polls := &workersPolls{p: redisq.NewPoller(client)}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	o := tui.Options{Address: srv.Addr(), Namespace: ns, Interval: 300 * time.Millisecond, Renderer: r,
		Reads: tui.Reads{Poll: polls}}
	var mu sync.Mutex
	var frame string
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
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if cond() {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("never %s; last frame:\n%s", what, frame)
	}
	shows := func(s ...string) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			for _, x := range s {
				if !strings.Contains(frame, x) {
					return false
				}
			}
			return true
		}
	}
	p.Send(tea.WindowSizeMsg{Width: 140, Height: 30})
	wait("a few polls on the Pools view", func() bool { return polls.count() >= 3 })
	asked, read := polls.since(0)
	for i := range asked {
		if asked[i] || read[i] != -1 {
			t.Fatalf("poll %d on the Pools view: asked for workers %v, read %d", i+1, asked[i], read[i])
		}
	}

	before := polls.count()
	for i := 0; i < 3; i++ { // Pools, Job types, Orphans, Workers
		p.Send(tea.KeyMsg{Type: tea.KeyTab})
	}
	wait("the busy workers on the Workers view", func() bool {
		return shows("[Workers]")() && strings.Count(frameOf(&mu, &frame), "slow_report") >= 3
	})
	asked, read = polls.since(before)
	if len(asked) == 0 || !asked[len(asked)-1] || read[len(read)-1] != 3 {
		t.Fatalf("polls since the Workers view opened: asked %v, read %v", asked, read)
	}

	p.Send(tea.KeyMsg{Type: tea.KeyTab}) // back to Pools
	wait("the Pools view", shows("[Pools]"))
	before = polls.count()
	wait("two polls on the Pools view", func() bool { return polls.count() >= before+3 })
	asked, read = polls.since(before + 1) // the first may have started on the Workers view
	for i := range asked {
		if asked[i] || read[i] != -1 {
			t.Fatalf("poll after the Workers view closed: asked for workers %v, read %d", asked[i], read[i])
		}
	}
}

func frameOf(mu *sync.Mutex, frame *string) string {
	mu.Lock()
	defer mu.Unlock()
	return *frame
}
